// What every phase of a bench run shares: the config, the fixtures, the variants of a round, the
// results file, the progress, the stops and the hooks that record a crash or the machine's load. A
// phase (phases.ts) reads it and adds its rows; nothing here runs a trial.
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { driverFor, workerClients } from "../../driver/clients.js";
import type { RunClients } from "../../driver/session-spec.js";
import { exitText } from "../../report/failures.js";
import { ResultsFile } from "../../results/journal.js";
import { ignoreReports } from "../../results/reports-ignore.js";
import type { RunInfo, VariantInfo } from "../../results/schema.js";
import { processStatsInfo } from "../../sampler/process-stats.js";
import { bundledCommandLine } from "../../server-process/bundled.js";
import { escapeText } from "../../util/escape.js";
import { fixtureShape, type RunFixtures, sourceOf } from "../fixtures/run-fixtures.js";
import type { CrashReport } from "../latency/latency.js";
import { createLoadRecorder, type LoadRecorder } from "../progress/load-recorder.js";
import type { Progress } from "../progress/progress.js";
import { type AdaptiveRounds, createAdaptiveRounds } from "../rounds/adaptive-rounds.js";
import { type MemoryCell, memoryCells } from "../rounds/plan.js";
import { type PinningInfo, pinnableCpus, planPinning } from "../trial/pinning.js";
import { commandLine, harnessOf } from "./command-line.js";
import { type BenchConfig, recordedConfig, type TargetSpec, type TargetsConfig } from "./config.js";
import { runDirName, runInfo } from "./machine.js";
import { createRunStops, type RunStops } from "./run-stops.js";

/** The variants of a round: the targets as launched, plus the A/A copy of the baseline when asked. */
export interface RoundVariants {
  /** Targets by variant name (the A/A copy's name maps to the baseline's spec). */
  targets: Map<string, TargetSpec>;
  /** The real variants, baseline first. */
  names: string[];
  /** Every variant a round runs (the A/A copy last, when there is one). */
  all: string[];
  /** The A/A copy's name, or null. */
  aa: string | null;
  isAa(variant: string): boolean;
}

export interface RunContext {
  config: BenchConfig;
  /** The targets config with --ref targets resolved. */
  launch: TargetsConfig;
  progress: Progress;
  file: ResultsFile;
  runDir: string;
  fixtures: RunFixtures;
  variants: RoundVariants;
  cells: MemoryCell[];
  /** Where memory trials pin the target and the harness, or null. */
  pinning: PinningInfo | null;
  /** The chosen driver's clients. */
  runClients: RunClients;
  /** Clients for sampled trials: Node clients in a worker thread, so this thread's GC and /proc reads stay prompt. */
  sampledClients: RunClients;
  /** Ends the sampled clients' worker thread (the run's end). */
  closeClients(): Promise<void>;
  stops: RunStops;
  load: LoadRecorder;
  adaptive: AdaptiveRounds;
  /** A target that died on its own is kept in the results (and said at once), never silently replaced. */
  crash(c: CrashReport, matrix: "latency" | "memory" | "leak" | "storm", aa: boolean): void;
}

/** What every matrix's runner takes from the run alike: the protocol, how targets start and stop, the stops. */
export function runnerBase(ctx: RunContext) {
  const { stops } = ctx;
  return {
    protocol: ctx.config.protocol,
    launch: ctx.launch,
    workDir: ctx.fixtures.workDir,
    stopped: stops.stopped,
    track: stops.track,
    signal: stops.signal,
  };
}

/** The hooks latency and memory cells report through: progress, crashes, the machine's load, rows. */
export function cellHooks<L extends { variant: string; trial: number }, Row extends L & { ok: boolean }>(
  ctx: RunContext,
  matrix: "latency" | "memory",
  label: (t: L) => string,
  add: (row: Row, aa: boolean) => void,
) {
  const { progress, variants, load, stops } = ctx;
  return {
    onTrialStart: (t: L) => progress.trial(label(t)),
    onCrash: (c: CrashReport) => ctx.crash(c, matrix, variants.isAa(c.variant)),
    beforeTrial: (t: L) => load.beforeTrial(matrix, t.trial, stops.signal),
    onRow: (measured: Row) => {
      const row = { ...measured, load: load.afterTrial() };
      add(row, variants.isAa(row.variant));
      progress.done(label(row), row.ok);
    },
  };
}

/** A phase runs one matrix. Planned once, before the run starts: `kinds` are its trials for the ETA. */
export type Phase = (ctx: RunContext) => { kinds: readonly string[]; run: () => Promise<void> };

/** The A/A copy of the baseline is "A2" (the baseline itself is A1), unless a target already has that name. */
export function aaCopyName(names: readonly string[]): string {
  let name = "A2";
  while (names.includes(name)) name = `${name}-copy`;
  return name;
}

/**
 * A/A, interleaved: a second copy of the baseline runs in every round beside baseline and candidate
 * (rotated with them), so each cell's noise band is measured under the same conditions. A single
 * target has nothing to compare, so it gets no copy.
 */
export function roundVariants(launch: TargetsConfig): RoundVariants {
  const targets = new Map(launch.targets.map((t) => [t.name, t]));
  const names = launch.targets.map((t) => t.name);
  const aa = launch.aa && names.length >= 2 ? aaCopyName(names) : null;
  if (aa) targets.set(aa, { ...(launch.targets[0] as TargetSpec), name: aa });
  return { targets, names, all: aa ? [...names, aa] : names, aa, isAa: (v) => aa !== null && v === aa };
}

export function variantInfos(targets: TargetSpec[]): VariantInfo[] {
  return targets.map((t, i) => ({
    name: t.name,
    kind: t.kind,
    command:
      t.kind === "bundled"
        ? bundledCommandLine(t.delivery, t.serverArgs).replace(
            /^node /,
            `node ${(t.nodeArgs ?? []).map((a) => `${a} `).join("")}`,
          )
        : t.command,
    role: i === 0 ? "baseline" : "candidate",
    ...(t.kind === "command" ? t.ref : undefined),
    ...(t.kind === "command" && t.seeded ? { seed: t.seeded.records } : undefined),
  }));
}

/** The run's head in results.json: the config as resolved (flat field names every reader knows), machine, fixtures. */
function runHead(
  config: BenchConfig,
  launch: TargetsConfig,
  fixtures: RunFixtures,
  runDir: string,
  io: { root: string; cwd: string; argv?: readonly string[] },
): RunInfo {
  const resolvedConfig = {
    ...recordedConfig({ ...config, targets: launch }),
    cases: fixtures.cases,
    out: runDir,
    fixture: fixtures.latency ? sourceOf(fixtures.latency) : null,
    memoryFixtures: Object.fromEntries([...fixtures.memory].map(([b, f]) => [b, sourceOf(f)])),
  };
  const harness = harnessOf(io.root);
  return {
    ...runInfo(resolvedConfig, harness.gitCommit),
    projectRoot: resolve(io.cwd),
    ...(io.argv ? { command: commandLine(io.argv) } : {}),
    ...harness,
    fixtures: {
      latency: fixtures.latency ? fixtureShape(fixtures.latency) : null,
      memory: [...fixtures.memory.values()].map(fixtureShape),
      ...(fixtures.leak ? { leak: fixtureShape(fixtures.leak) } : {}),
    },
  };
}

/** Opens the run directory and its results file and sets up what the phases share. */
export function createRunContext(o: {
  config: BenchConfig;
  launch: TargetsConfig;
  progress: Progress;
  fixtures: RunFixtures;
  io: { root: string; cwd: string; argv?: readonly string[]; handleSignals?: boolean };
}): RunContext {
  const { config, launch, progress } = o;
  const reports = join(o.io.cwd, "reports");
  // A reports/ folder the run makes in the user's repository ignores its runs in git (one it finds
  // is left as it is).
  if (config.run.out === null && !existsSync(reports)) ignoreReports(reports);
  const runDir = resolve(config.run.out ?? join(reports, runDirName()));
  mkdirSync(runDir, { recursive: true });
  const info = runHead(config, launch, o.fixtures, runDir, o.io);
  // Memory trials pin the target and the harness to different CPUs when they can; recorded either way.
  const pinning = config.memory.enabled ? planPinning(pinnableCpus(), config.memory.pin) : null;
  if (pinning) info.pinning = pinning;
  // Where the target's RSS and CPU come from, and the RSS interval that source keeps (coarser through ps).
  if (config.memory.enabled) info.processStats = processStatsInfo(config.memory.sampleIntervalMs);
  const file = new ResultsFile(runDir, info, variantInfos(launch.targets));
  const variants = roundVariants(launch);
  const { memory } = config;
  const cells = memoryCells(memory.scriptBytes, memory.clients, memory.modes);
  const adaptive = createAdaptiveRounds({
    config,
    names: variants.names,
    variants: variants.all,
    cases: o.fixtures.cases,
    cells,
    results: () => file.results,
    progress,
  });
  const runClients = driverFor(launch.driver);
  const worker = launch.driver === "node" ? workerClients() : null;
  return {
    ...{ config, launch, progress, file, runDir, fixtures: o.fixtures, variants, cells, pinning, adaptive },
    runClients,
    sampledClients: worker?.run ?? runClients,
    closeClients: async () => worker?.close(),
    // Installed once the results file exists: an interrupt from here on keeps what finished.
    stops: createRunStops({ progress, stopGraceMs: launch.stopGraceMs, handleSignals: o.io.handleSignals ?? false }),
    // The machine's load over every trial (others' CPU, steal), and --wait-quiet's pauses between rounds.
    load: createLoadRecorder({
      thresholdCores: config.run.disturbedCores,
      waitQuietSeconds: config.run.waitQuietSeconds,
      log: (line) => progress.log(line),
    }),
    crash: (c, matrix, aa) => {
      file.addCrash({ ...c, matrix, ...(aa ? { aa: true } : {}), at: new Date().toISOString() });
      progress.log(`target ${escapeText(c.variant)} died (${exitText(c)}) ${escapeText(c.during)}`);
    },
  };
}
