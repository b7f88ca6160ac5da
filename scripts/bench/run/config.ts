// What a bench run is asked to do, one typed config per concern (options/resolve-config.ts builds it
// from the flags). A module takes the configs it reads, not the whole run.

import type { DriverName } from "../../driver/clients.js";
import type { CompletionRule } from "../../driver/session-spec.js";
import type { RefsRequest } from "../../refs/checkout-plan.js";
import type { MinEffect } from "../../results/metric-floor.js";
import type { RefRecord } from "../../results/ref.js";
import type { LatencyCase, MemoryMode, SeedRecord } from "../../results/schema.js";
import type { Delivery } from "../../server-process/bundled.js";
import type { GuardConfig } from "../../verdicts/cells.js";

export const MEMORY_MODES: readonly MemoryMode[] = ["memory", "snapshot"];

/** A target: the bundled server with a delivery strategy, or a foreign server started by a shell command. */
export type TargetSpec =
  | {
      name: string;
      kind: "bundled";
      delivery: Delivery;
      /** --server-arg words, after the harness's own flags. */
      serverArgs: readonly string[];
      /** --gc-flags: node's own flags before the entry point (absent: none). */
      nodeArgs?: readonly string[];
    }
  | {
      name: string;
      kind: "command";
      command: string;
      /** Working directory of the command (a --ref's checkout); the harness's own when absent. */
      cwd?: string;
      /** What a --ref variant is: its revision, commit, build (recorded in results.json). */
      ref?: RefRecord;
      /** Set by the load phase (--binding): the state every trial starts from. */
      seeded?: SeededState;
    };

/** A variant seeded through a binding (bench/seed/seed-phase.ts). */
export interface SeededState {
  /**
   * By the path of the fixture it was seeded from: the template state folder, and the token its
   * prepare issued (null: the run's --token). Each seed prepares its own state, so each has its token.
   */
  templates: Readonly<Record<string, { dir: string; token: string | null }>>;
  records: SeedRecord[];
}

/** --binding: how foreign variants are seeded (null: they serve a copy of the fixture file, {db}). */
export interface BindingConfig {
  /** A shipped binding's name or a module's path; null: no load phase. */
  module: string | null;
  /** --binding-option key=value pairs, handed to the binding. */
  options: Readonly<Record<string, string>>;
  /** --binding-timeout-ms: the deadline of each call of the binding (0: none). */
  timeoutMs: number;
  /** --seed-window: the seed's writes in flight at once (1 for a binding that declares order "strict"). */
  window: number;
}

/** What every client session sends and expects (a SessionSpec's settings, before the case's cursor). */
export interface ProtocolConfig {
  urlPath: string;
  token: string;
  /** Extra headers of the WebSocket upgrade (--header); their values are secrets. */
  headers: Record<string, string>;
  subscribeTag: string;
  /** JSON template; `{after}` becomes the case's afterSequence or is dropped for snapshot. */
  subscribePayload: string;
  /** The thread cases' RPC tag and template (`{thread}` becomes the fixture's measured thread id). */
  threadSubscribeTag: string;
  threadSubscribePayload: string;
  completion: CompletionRule;
  probeTag: string;
  probePayload: unknown;
  ackDelayMs: number;
  /** How long a memory, leak or storm client holds the completion chunk's ACK before closing, ms. */
  holdMs: number;
  /** One session's (and trial's) timeout, ms. */
  trialTimeoutMs: number;
}

/** The variants compared and how they are started and stopped. */
export interface TargetsConfig {
  /** First is the baseline. */
  targets: TargetSpec[];
  /** --repo/--ref/--swap: the revisions to check out, build and start; their targets get a cwd once checked out. */
  refs: RefsRequest | null;
  /** A foreign target is ready when a line of its output matches (regex source); null: its port. */
  readyLine: string | null;
  /** A target becoming ready, ms. */
  startTimeoutMs: number;
  /** SIGTERM-to-SIGKILL grace when a target is stopped, ms. */
  stopGraceMs: number;
  /** A/A control: a second copy of the baseline ("A2") runs in every round beside baseline and candidate. */
  aa: boolean;
  /** What runs the clients. */
  driver: DriverName;
}

/** The fixtures measured: the user's, or default ones found or built. */
export interface FixturesConfig {
  /** Fixture for the latency matrix; null = the default 1 KiB fixture (built if missing). */
  fixture: string | null;
  /** Where default fixtures are found or built; null = the cache (fixtureCacheDir). */
  fixturesDir: string | null;
  seed: number;
  /** Default fixtures: projects per fixture and post-cursor events (quick keeps 1,000 events). */
  projects: number;
  events: number;
  /** Resume cursors given on the command line (null: the fixture's), for a server seeded its own way. */
  sequences: { cursor: number | null; latest: number | null };
}

export interface LatencyConfig {
  enabled: boolean;
  cases: LatencyCase[];
  /** Trials per latency case. */
  trials: number;
  /** Seconds of sequential latency rounds after the planned ones (bench/rounds/latency-rounds.ts); 0 = off. */
  sequentialSeconds: number;
}

export interface MemoryConfig {
  enabled: boolean;
  /** Trials per memory cell (each a fresh server). */
  trials: number;
  clients: number[];
  scriptBytes: number[];
  modes: MemoryMode[];
  /** The RSS lane's interval, ms. */
  sampleIntervalMs: number;
  /** The heap lane's interval (ms); null = the sampler's default (defaultHeapIntervalMs). */
  heapIntervalMs: number | null;
  /** Seconds of sequential memory rounds after the planned ones (bench/rounds/memory-rounds.ts); 0 = off. */
  sequentialSeconds: number;
  /** Pin memory trials' targets and the harness to different CPUs (--no-pin: off). */
  pin: boolean;
  /** --attribute: unmeasured profiling trials per cell and variant (bench/memory/attribute.ts); null = off. */
  attribute: { intervalBytes: number } | null;
}

export interface LeakConfig {
  /** --leak-cycles: measured reconnect cycles per variant; 0 = no leak detection. */
  cycles: number;
  /** --leak-warmup: cycles run before the measured ones, left out of the slope. */
  warmup: number;
  /** --leak-threshold-kib in bytes per cycle: a heap slope whose lower 95% bound exceeds it is a leak. */
  thresholdBytes: number;
}

export interface StormConfig {
  /** --storm: client counts of the reconnect storm cells; empty = no storm. */
  clients: number[];
  /** --storm-ramp-ms: connects spread evenly over this many ms. */
  rampMs: number;
  /** --storm-resume-ratio: share of storm clients that resume (the rest take a cold snapshot). */
  resumeRatio: number;
  /** --storm-trials: rounds per storm cell. */
  trials: number;
  /** --storm-timeout-ms: each storm client's session deadline, from its connect. */
  timeoutMs: number;
}

/**
 * A storm client's session deadline by default. Not --trial-timeout-ms (60 s, one session's budget):
 * 500 clients at once share the server's CPU and finish together, after about 41 s (legacy, 1 KiB, a
 * quiet 2-core machine), so a machine half as fast again put nearly every client past 60 s.
 */
export const DEFAULT_STORM_TIMEOUT_MS = 300_000;

/** How the run itself behaves. */
export interface RunConfig {
  /** Run directory; null = reports/<timestamp> chosen at run time. */
  out: string | null;
  quick: boolean;
  failFast: boolean;
  /** --auto-sample: seconds to spend adding rounds to guarded cells still undecided; null = off. */
  autoSampleSeconds: number | null;
  /** --no-memory-check turns off the check that the matrix fits in this machine's memory. */
  memoryCheck: boolean;
  /** --disturbed-cores: others' CPU + steal (cores) at which a round of a cell counts as disturbed. */
  disturbedCores: number;
  /** --wait-quiet: seconds to wait at most before each round for a quiet machine; null = no waiting. */
  waitQuietSeconds: number | null;
  /** The config file the options came from (--config, or catchup-bench.config.json), or null. */
  configFile: ConfigFileRecord | null;
  /** --history: the history store whose series report.md shows this run against; null: the repository's, if any. */
  history: string | null;
  /** --json: stdout carries the summary as JSON instead of the Markdown. */
  json: boolean;
  /** --summary-md: the file the summary block is also written to; null: none. */
  summaryMd: string | null;
}

/** A config file as results.json records it: the report's conditions line names it and its digest. */
export interface ConfigFileRecord {
  path: string;
  sha256: string;
}

export interface BenchConfig {
  run: RunConfig;
  protocol: ProtocolConfig;
  targets: TargetsConfig;
  fixtures: FixturesConfig;
  latency: LatencyConfig;
  memory: MemoryConfig;
  leak: LeakConfig;
  storm: StormConfig;
  /** The regression guard; null without --ceiling. */
  guard: GuardConfig | null;
  /** The guarded metrics (--guard, else the headline figure of each part that runs), also without --ceiling. */
  guardMetrics: string[];
  /** --min-effect: the practical floor below which any verdict is "no practical change". */
  minEffect: MinEffect;
  binding: BindingConfig;
}

/**
 * The config as results.json records it (`run.config`): the flat field names readers have always
 * used (report, guardFromConfig, older runs), whatever the in-memory shape.
 */
export function recordedConfig(c: BenchConfig): Record<string, unknown> {
  return {
    cases: c.latency.cases,
    trials: c.latency.trials,
    memoryTrials: c.memory.trials,
    ackDelayMs: c.protocol.ackDelayMs,
    holdMs: c.protocol.holdMs,
    clients: c.memory.clients,
    scriptBytes: c.memory.scriptBytes,
    memoryModes: c.memory.modes,
    memory: c.memory.enabled,
    latency: c.latency.enabled,
    sampleIntervalMs: c.memory.sampleIntervalMs,
    heapIntervalMs: c.memory.heapIntervalMs,
    out: c.run.out,
    quick: c.run.quick,
    fixture: c.fixtures.fixture,
    fixturesDir: c.fixtures.fixturesDir,
    aa: c.targets.aa,
    autoSampleSeconds: c.run.autoSampleSeconds,
    failFast: c.run.failFast,
    driver: c.targets.driver,
    seed: c.fixtures.seed,
    // A seeded variant's templates and token are this run's, not its config.
    targets: c.targets.targets.map((t) => (t.kind === "command" ? { ...t, seeded: undefined } : t)),
    urlPath: c.protocol.urlPath,
    sequences: c.fixtures.sequences,
    token: c.protocol.token,
    headers: c.protocol.headers,
    subscribeTag: c.protocol.subscribeTag,
    subscribePayload: c.protocol.subscribePayload,
    threadSubscribeTag: c.protocol.threadSubscribeTag,
    threadSubscribePayload: c.protocol.threadSubscribePayload,
    completion: c.protocol.completion,
    probeTag: c.protocol.probeTag,
    probePayload: c.protocol.probePayload,
    ceiling: c.guard?.ceiling ?? null,
    guard: c.guardMetrics,
    guardConfidence: c.guard?.confidence ?? false,
    allowMissing: c.guard?.allowMissing ?? false,
    guardMinPairs: c.guard?.minPairs ?? null,
    minEffect: c.minEffect,
    projects: c.fixtures.projects,
    events: c.fixtures.events,
    trialTimeoutMs: c.protocol.trialTimeoutMs,
    startTimeoutMs: c.targets.startTimeoutMs,
    readyLine: c.targets.readyLine,
    stopGraceMs: c.targets.stopGraceMs,
    refs: c.targets.refs,
    leakCycles: c.leak.cycles,
    leakWarmup: c.leak.warmup,
    leakThresholdBytes: c.leak.thresholdBytes,
    stormClients: c.storm.clients,
    stormRampMs: c.storm.rampMs,
    stormResumeRatio: c.storm.resumeRatio,
    stormTrials: c.storm.trials,
    stormTimeoutMs: c.storm.timeoutMs,
    configFile: c.run.configFile,
    binding: c.binding.module,
    bindingOptions: c.binding.options,
    bindingTimeoutMs: c.binding.timeoutMs,
    seedWindow: c.binding.window,
    memorySequentialSeconds: c.memory.sequentialSeconds,
    latencySequentialSeconds: c.latency.sequentialSeconds,
    pin: c.memory.pin,
    disturbedCores: c.run.disturbedCores,
    waitQuietSeconds: c.run.waitQuietSeconds,
  };
}
