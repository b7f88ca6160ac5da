// The on-disk results of a bench run (results.json, results.jsonl). Bytes and milliseconds only;
// MiB appears only in rendered reports. Bump RESULTS_SCHEMA when a field changes meaning.

export const RESULTS_SCHEMA = "catchup-bench/results@1";

export type LatencyCase = "snapshot" | "resume-none" | "resume-one" | "resume-many";
export type MemoryMode = "memory" | "snapshot";

/** One client session's figures, as the shared protocol client returns them (DESIGN §5). */
export interface SessionFigures {
  ok: boolean;
  completionMs: number | null;
  firstChunkMs: number | null;
  chunks: number;
  values: number;
  bytes: number;
  probeMs: number | null;
  error: string | null;
}

export interface LatencyRow extends SessionFigures {
  case: LatencyCase;
  variant: string;
  trial: number;
}

export interface IntervalStats {
  median: number;
  p99: number;
  max: number;
}

export interface MemoryRow {
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
  sampleIntervalMs: IntervalStats | null;
  /** Event-loop lag of the Node driver while the clients ran (ms; p50/p99/max): client-side distortion. Absent or null for k6. */
  clientLoopLagMs?: { p50: number; p99: number; max: number } | null;
  /** Relative to the run directory, e.g. "samples/memory-s1024-c4-memory-legacy-t1.jsonl". */
  samplesFile: string | null;
  error: string | null;
}

/** A line of samples/<cell>.jsonl: a sample, or a phase mark. t is ms on a monotonic clock from the cell's start. */
export type SampleLine =
  | { t: number; rss: number; heapUsed: number; heapTotal: number }
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
  loadAverage: number[];
  gitCommit: string | null;
  /** The full resolved configuration of the run. */
  config: Record<string, unknown>;
  /** True when the run was stopped (Ctrl-C/SIGTERM, --fail-fast) before its plan finished. */
  interrupted?: boolean;
  /** The project root the run started from: reports show paths below it relative to it. */
  projectRoot?: string;
  /** What the fixtures each matrix used actually hold (from their fixture_meta), for the report. */
  fixtures?: { latency: RunFixture | null; memory: RunFixture[] };
}

/** A fixture's shape as a report states it (a subset of fixture_meta). */
export interface RunFixture {
  projects: number;
  events: number;
  scriptBytesMin: number;
  scriptBytesMax: number;
}

export interface VariantInfo {
  name: string;
  /** "bundled" (the server-under-test with a delivery strategy) or "command" (a foreign target). */
  kind: "bundled" | "command";
  command: string;
  role: "baseline" | "candidate";
}

export interface Results {
  schema: typeof RESULTS_SCHEMA;
  run: RunInfo;
  variants: VariantInfo[];
  latency: LatencyRow[];
  memory: MemoryRow[];
  /** Present when --aa ran: the baseline measured against itself (same row shapes, variant names "A1"/"A2"-style). */
  aa?: { latency: LatencyRow[]; memory: MemoryRow[] };
}

/** A line of results.jsonl: the run header first, then one line per finished row, in completion order. */
export type ResultsLine =
  | { kind: "run"; schema: typeof RESULTS_SCHEMA; run: RunInfo; variants: VariantInfo[] }
  | { kind: "latency"; aa?: true; row: LatencyRow }
  | { kind: "memory"; aa?: true; row: MemoryRow };
