// The metrics, declared once as data: for each figure the harness judges, its key (the field of a
// results row and the name --guard takes), unit, better direction, practical floor, label, column
// header, the sentence that explains it, its place in the summary's headline and in report.md's
// compact form, and its chart style. verdicts/, report/ and the CLI's docs read this table; the k6
// summary's names come from the client's own list of session figures (scenarios/lib/session.js), which
// every latency metric here must name. Nothing else spells a metric's unit, label or header.
import type { StormRow } from "./storm-record.js";

/** What a figure is measured in: its practical floor, reasons and tables use this unit and no other. */
export type MetricUnit = "ms" | "bytes" | "bytes/cycle";

/** Where a figure is measured: per latency case, memory cell, storm cell, or over the leak cycles. */
export type Matrix = "latency" | "memory" | "storm" | "leak";

export interface MetricDescriptor {
  matrix: Matrix;
  unit: MetricUnit;
  /** Which way is better (a ratio candidate/baseline below 1.0 is the candidate doing better). */
  better: "lower";
  /**
   * Whether the practical floor (--min-effect) applies: its relative part, and its absolute part in
   * this unit. The leak slope has its own threshold instead.
   */
  floor: boolean;
  /** The title of its per-cell verdict table, after the key. */
  label: string;
  /** Its column header; tables add "median", the unit or a variant's name. */
  header: string;
  /** What it measures, in one sentence. */
  explains: string;
  /** Decimal places of its shown value, in its display unit (ms; MiB for bytes). */
  digits: number;
  /**
   * A column of its matrix's figure table: "per-variant", one column per variant with its paired
   * ratio beside them (the table's main figure); "pair", one "baseline → candidate" column.
   */
  column?: "per-variant" | "pair";
  /**
   * In the summary block: its place there (lower first), the subject of its sentence, and the word
   * that names it in a verdict cell shared with other figures.
   */
  headline?: { rank: number; subject: string; short: string };
  /** report.md keeps its per-cell verdict table when it must shorten to fit one comment. */
  compact: boolean;
  /** In each latency case's chart: how its trial points and its median line are drawn. */
  chart?: { point: "dot" | "ring"; median: "dash" | "dotted" };
  /** Results written before the client measured it lack it: judged and shown only where a row records it. */
  recent?: true;
  /** Higher where the candidate sends fewer chunks is the change's expected effect, not a regression. */
  laterWithFewerChunks?: true;
  /** The sequential memory rounds decide a cell on it (bench/rounds/memory-rounds.ts). */
  rounds?: true;
  /** The guard judges it when --guard does not say (in runs that measure its matrix). */
  guardedByDefault?: true;
  /** A storm figure's field in a storm row. */
  stormField?: keyof StormRow;
}

/** The table, in report order (verdict tables, --guard's list, docs). */
export const METRIC_TABLE = {
  completionMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "marker received: completion time (latency cases)",
    header: "marker received",
    explains: "From sending the subscribe request to receiving the completion marker's frame.",
    digits: 1,
    column: "per-variant",
    headline: { rank: 2, subject: "receives the marker", short: "received" },
    compact: true,
    chart: { point: "dot", median: "dash" },
    guardedByDefault: true,
  },
  acknowledgedMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "marker acknowledged: the study's timer, one ACK delay more (latency cases)",
    header: "acknowledged",
    explains:
      "From sending the subscribe request to sending the ACK of the marker's frame: one client ACK delay more, as the study's timer.",
    digits: 1,
    column: "pair",
    headline: { rank: 1, subject: "completes (marker acknowledged, the study's timer)", short: "acknowledged" },
    compact: true,
    chart: { point: "ring", median: "dotted" },
    recent: true,
  },
  firstChunkMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "first chunk time (latency cases)",
    header: "first chunk",
    explains: "From sending the subscribe request to receiving the first Chunk frame.",
    digits: 1,
    compact: true,
    laterWithFewerChunks: true,
  },
  firstAckMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "first chunk acknowledged: when the server may send the next chunk (latency cases)",
    header: "first chunk acknowledged",
    explains: "From sending the subscribe request to sending the ACK of the first Chunk frame.",
    digits: 1,
    compact: true,
    recent: true,
    laterWithFewerChunks: true,
  },
  probeMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "probe latency (latency cases)",
    header: "probe latency",
    explains: "The reply time of the unary probe sent when the first chunk arrives, while that chunk's ACK is held.",
    digits: 1,
    compact: true,
  },
  peakHeapBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "peak heap (memory cells)",
    header: "peak heap",
    explains: "The server's highest heap used, asked of its inspector.",
    digits: 1,
    column: "pair",
    headline: { rank: 3, subject: "peak heap", short: "heap" },
    compact: true,
    rounds: true,
    guardedByDefault: true,
  },
  peakRssBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "peak RSS (memory cells)",
    header: "peak RSS",
    explains: "The server's highest RSS, read from /proc.",
    digits: 1,
    column: "pair",
    headline: { rank: 4, subject: "peak RSS", short: "RSS" },
    compact: true,
    rounds: true,
  },
  hwmRssBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "kernel peak RSS, VmHWM (memory cells)",
    header: "VmHWM",
    explains: "The kernel's own peak RSS of the server.",
    digits: 1,
    column: "pair",
    compact: false,
  },
  postGcHeapBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "post-GC heap (memory cells)",
    header: "post-GC heap",
    explains: "The server's heap after all clients closed and a forced GC.",
    digits: 1,
    column: "pair",
    headline: { rank: 5, subject: "post-GC heap", short: "post-GC" },
    compact: true,
  },
  retainedHeapBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "retained heap (memory cells)",
    header: "retained heap",
    explains: "Post-GC heap minus that before the clients connected.",
    digits: 2,
    column: "pair",
    compact: false,
  },
  probeMaxMs: {
    matrix: "memory",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "max probe latency (memory cells)",
    header: "probe max",
    explains:
      "The slowest probe reply among a trial's clients, each probing while its first chunk's ACK is held; a cell's figure is the median over its trials.",
    digits: 1,
    compact: true,
  },
  leakSlopeBytes: {
    matrix: "leak",
    unit: "bytes/cycle",
    better: "lower",
    floor: false,
    label: "post-GC heap slope per reconnect cycle (leak cycles)",
    header: "post-GC heap slope",
    explains:
      "The Theil–Sen slope of the candidate's post-GC heap over its measured reconnect cycles; a leak when its interval's lower bound exceeds the threshold.",
    digits: 1,
    compact: true,
    guardedByDefault: true,
  },
  // The storm's default guard: peak RSS (its question: N catch-ups held at once; RSS, sampled from
  // outside, also holds the frames' buffers outside the JS heap) and completion p99 (the clients a
  // storm hurts are the tail: the median hides them, the max is one client).
  stormPeakRssBytes: {
    matrix: "storm",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "peak RSS (storm cells)",
    header: "peak RSS",
    explains: "The server's highest RSS while every client of the storm caught up at once.",
    digits: 1,
    compact: true,
    guardedByDefault: true,
    stormField: "peakRssBytes",
  },
  stormHwmRssBytes: {
    matrix: "storm",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "kernel peak RSS, VmHWM (storm cells)",
    header: "VmHWM",
    explains: "The kernel's own peak RSS of the server process over the storm.",
    digits: 1,
    compact: true,
    stormField: "hwmRssBytes",
  },
  stormPeakHeapBytes: {
    matrix: "storm",
    unit: "bytes",
    better: "lower",
    floor: true,
    label: "peak heap (storm cells)",
    header: "peak heap",
    explains: "The server's highest heap used over the storm.",
    digits: 1,
    compact: true,
    stormField: "peakHeapBytes",
  },
  stormCompletionMsP50: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "completion p50 (storm cells)",
    header: "completion p50",
    explains: "The median of the storm's clients' completion times (marker received).",
    digits: 0,
    compact: true,
    stormField: "completionMsP50",
  },
  stormCompletionMsP99: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "completion p99 (storm cells)",
    header: "completion p99",
    explains: "The 99th percentile of the storm's clients' completion times: the tail a storm hurts.",
    digits: 0,
    compact: true,
    guardedByDefault: true,
    stormField: "completionMsP99",
  },
  stormAllCaughtUpMs: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "all caught up (storm cells)",
    header: "all caught up",
    explains: "From the storm's first connect to the last client's completion frame; only when every client caught up.",
    digits: 0,
    compact: true,
    stormField: "allCaughtUpMs",
  },
  stormProbeMaxMs: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    floor: true,
    label: "probe max (storm cells)",
    header: "probe max",
    explains: "The slowest reply of the unary probes the storm's clients sent while their first chunk's ACK was held.",
    digits: 0,
    compact: true,
    stormField: "probeMaxMs",
  },
} as const satisfies Record<string, MetricDescriptor>;

type Table = typeof METRIC_TABLE;
/** Every figure the harness judges: paired metrics, storm figures and the leak slope. */
export type JudgedMetric = keyof Table;
type KeysOf<M extends Matrix> = { [K in JudgedMetric]: Table[K]["matrix"] extends M ? K : never }[JudgedMetric];
export type LatencyMetric = KeysOf<"latency">;
export type MemoryMetric = KeysOf<"memory">;
export type StormMetric = KeysOf<"storm">;
/** The paired metrics: judged per latency case and memory cell. */
export type Metric = LatencyMetric | MemoryMetric;

const ALL = Object.keys(METRIC_TABLE) as JudgedMetric[];

/** A metric's descriptor. */
export function metricOf(metric: JudgedMetric): MetricDescriptor {
  return METRIC_TABLE[metric];
}

/** The metrics of a matrix, in report order. */
function ofMatrix<M extends Matrix>(matrix: M): KeysOf<M>[] {
  return ALL.filter((k) => METRIC_TABLE[k].matrix === matrix) as KeysOf<M>[];
}

export const LATENCY_METRICS: readonly LatencyMetric[] = ofMatrix("latency");
export const MEMORY_METRICS: readonly MemoryMetric[] = ofMatrix("memory");
/** Every metric the paired statistics and the regression guard know, in report order. */
export const METRICS: readonly Metric[] = [...LATENCY_METRICS, ...MEMORY_METRICS];
/** Every figure the guard can judge, in report order. */
export const JUDGED_METRICS: readonly JudgedMetric[] = ALL;

/** The memory metrics the sequential rounds decide a cell on (bench/rounds/memory-rounds.ts). */
export const HEADLINE_MEMORY_METRICS: readonly Metric[] = METRICS.filter((m) => metricOf(m).rounds === true);

/** The storm figures the guard can judge, by their --guard names, to their storm-row fields. */
export const STORM_METRICS = Object.fromEntries(ofMatrix("storm").map((k) => [k, METRIC_TABLE[k].stormField])) as {
  [K in StormMetric]: Table[K]["stormField"];
};
export const STORM_METRIC_NAMES: StormMetric[] = ofMatrix("storm");

/** The leak guard's figure: the candidate's post-GC heap slope per reconnect cycle. */
export const LEAK_METRIC = "leakSlopeBytes" satisfies KeysOf<"leak">;

/** Each judged figure's unit, by key: a view of the metric table for code that needs the map. */
export const METRIC_UNITS = Object.fromEntries(ALL.map((k) => [k, METRIC_TABLE[k].unit])) as {
  [K in JudgedMetric]: Table[K]["unit"];
};

/** A figure's unit (ms or bytes for every paired and storm metric, by type). */
export function unitOf<M extends JudgedMetric>(metric: M): Table[M]["unit"] {
  return METRIC_UNITS[metric];
}

/** The unit a figure is shown in: MiB for bytes, KiB per cycle for the leak slope. */
export function displayUnit(metric: JudgedMetric): string {
  const unit = METRIC_TABLE[metric].unit;
  return unit === "bytes" ? "MiB" : unit === "bytes/cycle" ? "KiB/cycle" : unit;
}

/** The metrics of the summary's headline, in their order there. */
export function headlineMetrics<K extends JudgedMetric>(keys: readonly K[]): K[] {
  const rank = (k: K) => (metricOf(k).headline?.rank ?? 0) as number;
  return keys.filter((k) => metricOf(k).headline).sort((a, b) => rank(a) - rank(b));
}
