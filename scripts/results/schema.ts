// The on-disk results of a bench run (results.json, results.jsonl). Bytes and milliseconds only;
// MiB appears only in rendered reports. Bump RESULTS_SCHEMA when a field changes meaning, and teach
// upgradeResults to read the older version (or drop it from READABLE_RESULTS_SCHEMAS).

import type { LATENCY_CASES } from "../../scenarios/lib/protocol.js";
import type { SessionResult } from "../../scenarios/lib/session.js";
import type { AttributionInfo, AttributionRow } from "./attribution-record.js";
import type { LeakRow } from "./leak-record.js";
import type { RunLoad, TrialLoad } from "./load-record.js";
import type { RefRecord } from "./ref.js";
import type { RssSplit } from "./rss-split-record.js";
import type { StormRow } from "./storm-record.js";
import type { CellVerdict, StormVerdict } from "./verdict-record.js";

/**
 * @2: a memory row's sampleIntervalMs is the RSS lane's achieved interval only (the sampler has two
 * lanes; the heap lane's is heapIntervalMs). In @1 it was the interval of one sampler that read RSS
 * and heap together, so it was both lanes' interval.
 */
export const RESULTS_SCHEMA = "catchup-bench/results@3";
/** The versions `report` reads: older ones are upgraded in memory (upgradeResults). */
export const READABLE_RESULTS_SCHEMAS = ["catchup-bench/results@1", "catchup-bench/results@2", RESULTS_SCHEMA] as const;

export type LatencyCase = (typeof LATENCY_CASES)[number];
export type MemoryMode = "memory" | "snapshot";

/**
 * One client session's figures, as the shared protocol client returns them (everything up to and
 * including the completion frame): its SessionResult, declared beside the measurement itself.
 */
export type SessionFigures = SessionResult;

export interface LatencyRow extends SessionFigures {
  case: LatencyCase;
  variant: string;
  trial: number;
  /** CPU time (user + system) the target used during this trial's session (ms); absent in older results. */
  targetCpuMs?: number | null;
  /** The machine's CPU counters over this trial (others' CPU, steal, load average); absent in older results. */
  load?: TrialLoad | null;
}

export interface IntervalStats {
  median: number;
  p99: number;
  max: number;
}

export interface MemoryRow {
  /** Its target could not be started (never ready, exited first): nothing was measured; the run has no result. */
  startFailed?: true;
  scriptBytes: number;
  clients: number;
  mode: MemoryMode;
  variant: string;
  trial: number;
  ok: boolean;
  baselineHeapBytes: number | null;
  peakHeapBytes: number | null;
  peakRssBytes: number | null;
  hwmRssBytes: number | null;
  postGcHeapBytes: number | null;
  retainedHeapBytes: number | null;
  bytesThroughCompletion: number | null;
  completionMsMax: number | null;
  probeMaxMs: number | null;
  probeMedianMs: number | null;
  /** The RSS lane's achieved interval between samples (ms). */
  sampleIntervalMs: IntervalStats | null;
  /** The heap lane's achieved interval between answers (ms); absent in results written before it existed. */
  heapIntervalMs?: IntervalStats | null;
  /** RSS samples taken (RSS lane). */
  rssSamples?: number | null;
  /** Heap samples answered (heap lane). */
  heapSamples?: number | null;
  /** The longest stretch with no heap answer (ms): the target ran native code, or its inspector was busy. */
  heapGapMaxMs?: number | null;
  /** CPU time (user + system) the target used while the cell was sampled (ms). */
  targetCpuMs?: number | null;
  /** Event-loop lag of the Node driver while the clients ran (ms; p50/p99/max): client-side distortion. Absent or null for k6. */
  clientLoopLagMs?: { p50: number; p99: number; max: number } | null;
  /** The machine's CPU counters over this trial (others' CPU, steal, load average); absent in older results. */
  load?: TrialLoad | null;
  /**
   * Where the trial's wall time went, ms per phase (copy, start, startWait, baselineGc, idle, clients,
   * samplerStop, postGc, stop; scripts/bench/trial/trial-timing.ts); absent in results written before it existed.
   */
  phaseMs?: Record<string, number>;
  /** Its server was started during the previous trial's settling (after that trial's sampling ended). */
  startedAhead?: boolean;
  /** The RSS split on the heap lane's ticks (heap, external, array buffers, remainder); absent in older results. */
  rssSplit?: RssSplit | null;
  /** Relative to the run directory, e.g. "samples/memory-s1024-c4-memory-legacy-t1.jsonl". */
  samplesFile: string | null;
  error: string | null;
}

/** A line of samples/<cell>.jsonl: a sample, or a phase mark. t is ms on a monotonic clock from the cell's start. */
export type SampleLine =
  /** Both readings in one line: samples files written before the sampler had two lanes. */
  | { t: number; rss: number; heapUsed: number; heapTotal: number }
  /** RSS lane: t is when /proc was read. */
  | { t: number; rss: number }
  /** Heap lane: t is when the inspector answered; with the RSS split, the rest of the target's process.memoryUsage(). */
  | { t: number; heapUsed: number; heapTotal: number; external?: number; arrayBuffers?: number; tickRss?: number }
  /** No heap answer during the heapGapMs before t: a gap in the heap timeline, never interpolated. */
  | { t: number; heapGapMs: number }
  | {
      t: number;
      phase: "connect" | "first-chunk" | "completion" | "hold-end" | "close" | "gc" | string;
      heapUsed?: number;
    };

export interface RunInfo {
  startedAt: string;
  finishedAt: string | null;
  node: string;
  cpuModel: string;
  cores: number;
  /** Total memory of the machine, bytes; absent in older results. */
  memoryBytes?: number;
  /** The kernel's release (os.release()); absent in older results. */
  kernel?: string;
  loadAverage: number[];
  gitCommit: string | null;
  /** The harness's build had uncommitted changes to tracked files beside gitCommit; absent otherwise. */
  gitDirty?: boolean;
  /** The full resolved configuration of the run. */
  config: Record<string, unknown>;
  /** True when the run was stopped (Ctrl-C/SIGTERM, --fail-fast) before its plan finished. */
  interrupted?: boolean;
  /** Why it stopped early: "SIGINT", "SIGTERM", the --fail-fast reason, or a fatal error (one line). */
  stopReason?: string | null;
  /** The project root the run started from: reports show paths below it relative to it. */
  projectRoot?: string;
  /** The command line that started the run ("catchup-bench bench --quick"), secrets redacted. */
  command?: string;
  /** The harness's own version (package.json); `gitCommit` is the harness's commit, not a variant's. */
  harnessVersion?: string;
  /** What the fixtures each matrix used actually hold (from their fixture_meta), for the report. */
  fixtures?: { latency: RunFixture | null; memory: RunFixture[]; leak?: RunFixture };
  /**
   * Where memory trials read the target's RSS and CPU time: "proc" (Linux's /proc) or "ps" (pidusage's
   * ps mode), the RSS lane's interval that source keeps (ms) and its CPU time's step (ms); absent in
   * older results (read through /proc at the asked interval).
   */
  processStats?: { source: "proc" | "ps"; rssIntervalMs: number; cpuStepMs: number | null };
  /** Memory trials' CPU pinning (scripts/bench/trial/pinning.ts): which CPUs, or why none. */
  pinning?: { enabled: boolean; target?: number[]; harness?: number[]; reason?: string; tool?: string };
}

/** A fixture's shape as a report states it (a subset of fixture_meta). */
export interface RunFixture {
  projects: number;
  events: number;
  scriptBytesMin: number;
  scriptBytesMax: number;
  /** The content digest of the one file every trial of the run measured (its pinned copy's). */
  contentSha256?: string;
}

/** A variant measured by git ref (--repo/--ref) also carries its RefRecord fields: ref, commit, dirty, build, ... */
export interface VariantInfo extends Partial<RefRecord> {
  name: string;
  /** "bundled" (the server-under-test with a delivery strategy) or "command" (a foreign target). */
  kind: "bundled" | "command";
  command: string;
  role: "baseline" | "candidate";
  /** What the target's listening process ran on (/proc/PID/exe; its Node version), seen at its first start. */
  runtime?: { exe: string | null; node: string | null };
  /** The load phase (--binding): one seed per fixture, each the template every trial's state was copied from. */
  seed?: SeedRecord[];
}

/** One seed of a variant's state through a binding (bench/seed/seed-state.ts). */
export interface SeedRecord {
  /** The fixture's file name. */
  fixture: string;
  binding: string;
  bindingSha256: string;
  /** Fixture events written through the server's API. */
  events: number;
  /** From the server's start on the prepared state to its stop, ms (when this template was made). */
  seedMs: number;
  /** Events written per second, the writes alone. */
  eventsPerSecond: number;
  /** Writes in flight at once (--seed-window; 1 for a binding that declares order "strict"). Absent in older runs. */
  window?: number;
  /** seedMs split: the server's start (to ready) and stop, ms. */
  startStopMs?: number;
  /** seedMs split: time with at least one write (or the read-back) awaiting the server's reply, ms. */
  answeringMs?: number;
  /** seedMs split: the rest, the harness's and the binding's own work with nothing at the server, ms. */
  harnessMs?: number;
  /** The template's size on disk. */
  templateBytes: number;
  /** The sequences the server assigned: the resume cursor and the last write. */
  cursorSequence: number;
  latestSequence: number;
  /** True when an earlier run made this template (same build, fixture and binding). */
  cached: boolean;
}

/** What auto-sampling did: its budget, the time it used, and the rounds each resampled cell took. */
export interface AutoSampleInfo {
  budgetSeconds: number;
  spentSeconds: number;
  cells: { matrix: "latency" | "memory"; cell: string; rounds: number; decided: boolean }[];
}

/** Why sequential memory rounds gave a cell no more rounds (results.json's memoryRounds.cells[].why). */
export const MEMORY_ROUNDS_WHY = ["pairs", "decided", "futile", "clear", "equivalent", "budget", "missing"] as const;
export type MemoryRoundsWhy = (typeof MEMORY_ROUNDS_WHY)[number];

/** Sequential memory rounds: the budget, the time used, and per cell its pairs and why no more. */
export interface MemoryRoundsInfo {
  budgetSeconds: number;
  spentSeconds: number;
  targetPairs: number;
  cells: { cell: string; pairs: number; why: MemoryRoundsWhy }[];
}

export interface Results {
  schema: typeof RESULTS_SCHEMA;
  run: RunInfo;
  variants: VariantInfo[];
  latency: LatencyRow[];
  memory: MemoryRow[];
  /**
   * The A/A control: rows of the baseline's second copy ("A2"), run in the same rounds as the
   * baseline (its partner "A1" is the baseline's own rows). Older runs kept both "A1" and "A2" here.
   */
  aa?: { latency: LatencyRow[]; memory: MemoryRow[] };
  /**
   * Per metric and cell, the verdict of the run (written when it finished): latency and memory cells,
   * then storm cells, whose entries also name the pairs that did not count (`missing`).
   */
  verdicts?: (CellVerdict | StormVerdict)[];
  /** What --auto-sample did, when it ran. */
  autoSample?: AutoSampleInfo;
  /**
   * Sequential memory rounds (scripts/bench/rounds/memory-rounds.ts): the budget, the time used, and per cell
   * its pairs and why it got no more ("pairs": reached targetPairs; "decided": every headline metric
   * DIFFERENT or SAME at a look of the sequential rule; "futile": at a look, every metric not yet
   * answered had under a 10% chance of an answer by targetPairs; "clear" (older runs): every ratio beyond the
   * A/A band and 1.0; "equivalent": every ratio within the practical floor; "budget": the time ran
   * out; "missing": a failed pair).
   */
  memoryRounds?: MemoryRoundsInfo;
  /**
   * Sequential latency rounds, the same rule on latency cases: per case its pairs and why no more
   * ("decided": every stopping metric DIFFERENT or SAME at a look; "futile"; "pairs": the cap; "budget"; "missing").
   */
  latencyRounds?: MemoryRoundsInfo;
  /** Targets that died on their own during the run (never one the harness stopped), in order. */
  targetCrashes?: TargetCrash[];
  /**
   * --leak-cycles: per variant, the post-GC heap, RSS and descriptors after every reconnect cycle on
   * one server, their slopes per cycle (Theil–Sen, Sen's 95% interval) and the verdict.
   */
  leak?: LeakRow[];
  /** --storm: per storm cell and variant, N clients reconnecting at once against a fresh server. */
  storm?: StormRow[];
  /** --attribute: allocation sites from the sampling heap profiler, on unmeasured trials. */
  attribution?: AttributionInfo;
  /** The machine's load per round of each matrix (others' CPU, steal), which rounds were disturbed, --wait-quiet's pauses. */
  load?: RunLoad;
}

/** A target process that exited while the harness still needed it: a finding, never silently replaced. */
export interface TargetCrash {
  variant: string;
  /** "latency", "memory" or "leak" (and "A/A " runs are marked by aa). */
  matrix: "latency" | "memory" | "leak" | "storm";
  aa?: boolean;
  /** ISO time the harness saw the exit. */
  at: string;
  /** What the harness was doing: "idle between trials", "during trial 2 of resume-many", ... */
  during: string;
  code: number | null;
  signal: string | null;
  /** The target's last stderr lines (escaped: no control characters), possibly empty. */
  stderrTail: string;
  /** The trials this crash made fail or flagged (e.g. "resume-many legacy trial 2"). */
  affects: string[];
}

/** A line of results.jsonl: the run header first, then one line per finished row, in completion order. */
export type ResultsLine =
  | {
      kind: "run";
      schema: typeof RESULTS_SCHEMA;
      run: RunInfo;
      variants: VariantInfo[];
      /** The bench process writing this journal (journal-owner.ts): alive means the run is in progress. */
      owner?: { pid: number; startTicks: number | null };
    }
  | { kind: "latency"; aa?: true; row: LatencyRow }
  | { kind: "memory"; aa?: true; row: MemoryRow }
  | { kind: "leak"; row: LeakRow }
  | { kind: "storm"; row: StormRow }
  | { kind: "attribution"; intervalBytes: number; row: AttributionRow }
  | { kind: "crash"; crash: TargetCrash }
  | { kind: "stop"; reason: string };

/**
 * A parsed results file of any readable version as the current one (the file is not rewritten).
 * @1 rows without heapIntervalMs came from the one-lane sampler, whose interval was the heap's too;
 * @1 rows that have it were written by the two-lane sampler before the version was bumped. @2 differs
 * only in its stored verdicts (no `outcome`).
 * Returns null for a version this one cannot read. Pure; the input is not modified.
 */
export function upgradeResults(value: { schema?: unknown } & Record<string, unknown>): Results | null {
  if (value.schema === RESULTS_SCHEMA) return value as unknown as Results;
  // @2's verdicts have no outcome and its `undecided` spoke for guarded cells only: the rows are the
  // same, and `report` re-judges them (the stored verdicts stay as written).
  if (value.schema === "catchup-bench/results@2") return { ...(value as unknown as Results), schema: RESULTS_SCHEMA };
  if (value.schema !== "catchup-bench/results@1") return null;
  const v = value as unknown as Results;
  const memory = (rows: MemoryRow[]): MemoryRow[] =>
    rows.map((r) =>
      r && typeof r === "object" && r.heapIntervalMs === undefined ? { ...r, heapIntervalMs: r.sampleIntervalMs } : r,
    );
  return {
    ...v,
    schema: RESULTS_SCHEMA,
    memory: Array.isArray(v.memory) ? memory(v.memory) : v.memory,
    ...(v.aa && Array.isArray(v.aa.memory) ? { aa: { ...v.aa, memory: memory(v.aa.memory) } } : {}),
  };
}
