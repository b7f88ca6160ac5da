// The metrics, declared once as data with their behaviour: for each figure the harness judges, its key
// (the field of a results row and the name --guard takes), where it is measured, its unit on disk, how
// it is shown (scale), its practical floor as a rule with its reason, its label, header and sentence,
// how the summary words it, whether it stops the sequential rounds, its place in report.md's compact
// form and its chart style; the headline's order is one list (HEADLINE). verdicts/, report/, the
// history, the k6 merge and the CLI's docs read this table and branch on nothing else of a metric.
// The k6 summary's names come from the client's own list of session figures
// (scenarios/lib/session.js), which every latency metric here must name.
import {
  type FloorRule,
  type FloorSize,
  type FloorUnit,
  floorSize,
  type MinEffect,
  toleranceAt,
} from "./metric-floor.js";
import type { StormRow } from "./storm-record.js";

/** What a figure is measured and stored in (results.json, the history store, each verdict's `unit`). */
export type MetricUnit = "ms" | "bytes" | "bytes/cycle";

/** Where a figure is measured: per latency case, memory cell, storm cell, or over the leak cycles. */
export type Matrix = "latency" | "memory" | "storm" | "leak";

/** How a figure is shown: its display unit, the divisor from its stored unit to it, its decimal places. */
export interface Scale {
  unit: string;
  divisor: number;
  digits: number;
}

/** How the summary's sentence says a headline figure. */
export interface Wording {
  /** The sentence's subject, `{candidate}` standing for the candidate's name. */
  subject: string;
  /** A lower and a higher figure, as the sentence says them ("faster" / "slower"). */
  lower: string;
  higher: string;
  /** The word that names it in a verdict cell shared with other figures ("heap"). */
  short: string;
  /** How the closing line names it ("completion (acknowledged)"). */
  closing: string;
}

export interface MetricDescriptor {
  matrix: Matrix;
  unit: MetricUnit;
  /** Which way is better (a ratio candidate/baseline below 1.0 is the candidate doing better). */
  better: "lower";
  /** How its figures are shown in every table. */
  scale: Scale;
  /** Its practical floor (metric-floor.ts), or null: judged without one (the leak slope has its threshold). */
  floor: FloorRule | null;
  /** The title of its per-cell verdict table, after the key. */
  label: string;
  /** Its column header; tables add "median", the unit or a variant's name. */
  header: string;
  /** What it measures, in one sentence. */
  explains: string;
  /** How the summary words it, when it is in the HEADLINE (default: "{candidate}'s <header>", lower / higher). */
  wording?: Partial<Wording>;
  /**
   * A column of its matrix's figure table: "per-variant", one column per variant with its paired
   * ratio beside them (the table's main figure); "pair", one "baseline → candidate" column.
   */
  column?: "per-variant" | "pair";
  /** report.md keeps its per-cell verdict table when it must shorten to fit one comment. */
  compact: boolean;
  /** In each latency case's chart of the timers (its axis is ms): how its trial points and its median line are drawn. */
  chart?: { point: "dot" | "ring"; median: "dash" | "dotted" };
  /** Results written before the client measured it lack it: judged and shown only where a row records it. */
  recent?: true;
  /** Higher where the candidate sends fewer chunks is the change's expected effect, not a regression. */
  laterWithFewerChunks?: true;
  /** The sequential rounds of its matrix stop a cell only once it is DIFFERENT or SAME (verdicts/sequential.ts). */
  stopsRounds?: true;
  /** The guard judges it when --guard does not say (in runs that measure its matrix). */
  guardedByDefault?: true;
  /** A storm figure's field in a storm row. */
  stormField?: keyof StormRow;
  /** Its medians' field in `--json`'s per-cell rows (default: its key). */
  json?: string;
}

const MIB = 1024 * 1024;

/** Milliseconds, shown with one decimal place (storm figures: whole ms). */
const MS: Scale = { unit: "ms", divisor: 1, digits: 1 };
const WHOLE_MS: Scale = { unit: "ms", divisor: 1, digits: 0 };
/** Bytes of memory, shown in MiB. */
const MIB_1: Scale = { unit: "MiB", divisor: MIB, digits: 1 };
const MIB_2: Scale = { unit: "MiB", divisor: MIB, digits: 2 };

/** Timer and probe figures keep the series floor they had: a change point of 2% and 1 ms. */
const MS_SERIES = { percent: 2, absolute: 1 };
/** Memory figures: a change point of 1% and 2 MiB. */
const BYTES_SERIES = { percent: 1, absolute: 2 * MIB };

/** Why a reviewer accepts each floor rule below (docs/statistics.md#practical-floors-per-metric). */
const WHY = {
  timer:
    "a reconnect's catch-up takes tens to hundreds of ms: a change under 1% or 1 ms is one no user of the client could tell",
  peak: "peaks of tens to hundreds of MiB size a server's memory: a change under 1% or 1 MiB does not change its sizing",
  probe:
    "another call's reply while a catch-up is in flight is what every other client waits, and a catch-up that holds it up shows in tens of percent: under 5% it does not; 0.1 ms is the tables' resolution, a small part of a loopback reply (1.5–2.6 ms on the bundled server)",
  postGc:
    "what the server keeps for its whole life once its clients are gone: 1% of it is a lasting change worth a review line (0.14 MiB of the bundled server's 14 MiB); 64 KiB lets the 1% decide on any heap above 6.4 MiB",
  retained:
    "the part of the post-GC heap the catch-ups left behind (about 1 MiB on the bundled server), judged at the post-GC heap's absolute size, 64 KiB (4–7% of it); an absolute part as large as the figure would leave no lower figure to call a change",
};

// The floor rules: the client's timers; peak memory (what a server is sized for); the concurrent probe
// (whether a catch-up holds up other calls); post-GC heap (what the server keeps once its clients are
// gone); retained heap (post-GC heap above the heap before the clients came).
const TIMER_FLOOR: FloorRule = { percent: 1, absolute: 1, series: MS_SERIES, why: WHY.timer };
const PEAK_FLOOR: FloorRule = { percent: 1, absolute: MIB, series: BYTES_SERIES, why: WHY.peak };
const PROBE_FLOOR: FloorRule = { percent: 5, absolute: 0.1, series: MS_SERIES, why: WHY.probe };
const POST_GC_FLOOR: FloorRule = { percent: 1, absolute: 64 * 1024, series: BYTES_SERIES, why: WHY.postGc };
const RETAINED_FLOOR: FloorRule = { percent: 1, absolute: 64 * 1024, series: BYTES_SERIES, why: WHY.retained };

/** The table, in report order (verdict tables, --guard's list, docs). */
export const METRIC_TABLE = {
  completionMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    scale: MS,
    floor: TIMER_FLOOR,
    label: "marker received: completion time (latency cases)",
    header: "marker received",
    explains: "From sending the subscribe request to receiving the completion marker's frame.",
    wording: {
      subject: "{candidate} receives the marker",
      lower: "faster",
      higher: "slower",
      short: "received",
      closing: "completion (marker received)",
    },
    column: "per-variant",
    compact: true,
    chart: { point: "dot", median: "dash" },
    stopsRounds: true,
    guardedByDefault: true,
    json: "completionMedianMs",
  },
  acknowledgedMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    scale: MS,
    floor: TIMER_FLOOR,
    label: "marker acknowledged: the study's timer, one ACK delay more (latency cases)",
    header: "acknowledged",
    explains:
      "From sending the subscribe request to sending the ACK of the marker's frame: one client ACK delay more, as the study's timer.",
    wording: {
      subject: "{candidate} completes (marker acknowledged, the study's timer)",
      lower: "faster",
      higher: "slower",
      short: "acknowledged",
      closing: "completion (acknowledged)",
    },
    column: "pair",
    compact: true,
    chart: { point: "ring", median: "dotted" },
    recent: true,
    stopsRounds: true,
    json: "acknowledgedMedianMs",
  },
  firstChunkMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    scale: MS,
    floor: TIMER_FLOOR,
    label: "first chunk time (latency cases)",
    header: "first chunk",
    explains: "From sending the subscribe request to receiving the first Chunk frame.",
    compact: true,
    laterWithFewerChunks: true,
  },
  firstAckMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    scale: MS,
    floor: TIMER_FLOOR,
    label: "first chunk acknowledged: when the server may send the next chunk (latency cases)",
    header: "first chunk acknowledged",
    explains: "From sending the subscribe request to sending the ACK of the first Chunk frame.",
    compact: true,
    recent: true,
    laterWithFewerChunks: true,
  },
  probeMs: {
    matrix: "latency",
    unit: "ms",
    better: "lower",
    scale: MS,
    floor: PROBE_FLOOR,
    label: "probe latency (latency cases)",
    header: "probe latency",
    explains: "The reply time of the unary probe sent when the first chunk arrives, while that chunk's ACK is held.",
    compact: true,
  },
  peakHeapBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    scale: MIB_1,
    floor: PEAK_FLOOR,
    label: "peak heap (memory cells)",
    header: "peak heap",
    explains: "The server's highest heap used, asked of its inspector.",
    wording: { subject: "{candidate}'s peak heap", short: "heap" },
    column: "pair",
    compact: true,
    stopsRounds: true,
    guardedByDefault: true,
  },
  peakRssBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    scale: MIB_1,
    floor: PEAK_FLOOR,
    label: "peak RSS (memory cells)",
    header: "peak RSS",
    explains: "The server's highest RSS, read from /proc.",
    wording: { subject: "{candidate}'s peak RSS", short: "RSS" },
    column: "pair",
    compact: true,
    stopsRounds: true,
  },
  hwmRssBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    scale: MIB_1,
    floor: PEAK_FLOOR,
    label: "kernel peak RSS, VmHWM (memory cells)",
    header: "VmHWM",
    explains: "The kernel's own peak RSS of the server.",
    column: "pair",
    compact: false,
  },
  postGcHeapBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    scale: MIB_1,
    floor: POST_GC_FLOOR,
    label: "post-GC heap (memory cells)",
    header: "post-GC heap",
    explains: "The server's heap after all clients closed and a forced GC.",
    wording: { subject: "{candidate}'s post-GC heap", short: "post-GC" },
    column: "pair",
    compact: true,
  },
  retainedHeapBytes: {
    matrix: "memory",
    unit: "bytes",
    better: "lower",
    scale: MIB_2,
    floor: RETAINED_FLOOR,
    label: "retained heap (memory cells)",
    header: "retained heap",
    explains: "Post-GC heap minus that before the clients connected.",
    column: "pair",
    compact: false,
  },
  probeMaxMs: {
    matrix: "memory",
    unit: "ms",
    better: "lower",
    scale: MS,
    floor: PROBE_FLOOR,
    label: "max probe latency (memory cells)",
    header: "probe max",
    explains:
      "The slowest probe reply among a trial's clients, each probing while its first chunk's ACK is held; a cell's figure is the median over its trials.",
    compact: true,
  },
  leakSlopeBytes: {
    matrix: "leak",
    unit: "bytes/cycle",
    better: "lower",
    scale: { unit: "KiB/cycle", divisor: 1024, digits: 1 },
    floor: null,
    label: "post-GC heap slope per reconnect cycle (leak cycles)",
    header: "post-GC heap slope",
    explains:
      "The Theil–Sen slope of the candidate's post-GC heap over its measured reconnect cycles; a leak when its interval's lower bound exceeds the threshold.",
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
    scale: MIB_1,
    floor: PEAK_FLOOR,
    label: "peak RSS (storm cells)",
    header: "peak RSS",
    explains: "The server's highest RSS while every client of the storm caught up at once.",
    compact: true,
    guardedByDefault: true,
    stormField: "peakRssBytes",
  },
  stormHwmRssBytes: {
    matrix: "storm",
    unit: "bytes",
    better: "lower",
    scale: MIB_1,
    floor: PEAK_FLOOR,
    label: "kernel peak RSS, VmHWM (storm cells)",
    header: "VmHWM",
    explains: "The kernel's own peak RSS of the server process over the storm.",
    compact: true,
    stormField: "hwmRssBytes",
  },
  stormPeakHeapBytes: {
    matrix: "storm",
    unit: "bytes",
    better: "lower",
    scale: MIB_1,
    floor: PEAK_FLOOR,
    label: "peak heap (storm cells)",
    header: "peak heap",
    explains: "The server's highest heap used over the storm.",
    compact: true,
    stormField: "peakHeapBytes",
  },
  stormCompletionMsP50: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    scale: WHOLE_MS,
    floor: TIMER_FLOOR,
    label: "completion p50 (storm cells)",
    header: "completion p50",
    explains: "The median of the storm's clients' completion times (marker received).",
    compact: true,
    stormField: "completionMsP50",
  },
  stormCompletionMsP99: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    scale: WHOLE_MS,
    floor: TIMER_FLOOR,
    label: "completion p99 (storm cells)",
    header: "completion p99",
    explains: "The 99th percentile of the storm's clients' completion times: the tail a storm hurts.",
    compact: true,
    guardedByDefault: true,
    stormField: "completionMsP99",
  },
  stormAllCaughtUpMs: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    scale: WHOLE_MS,
    floor: TIMER_FLOOR,
    label: "all caught up (storm cells)",
    header: "all caught up",
    explains: "From the storm's first connect to the last client's completion frame; only when every client caught up.",
    compact: true,
    stormField: "allCaughtUpMs",
  },
  stormProbeMaxMs: {
    matrix: "storm",
    unit: "ms",
    better: "lower",
    scale: WHOLE_MS,
    floor: PROBE_FLOOR,
    label: "probe max (storm cells)",
    header: "probe max",
    explains: "The slowest reply of the unary probes the storm's clients sent while their first chunk's ACK was held.",
    compact: true,
    stormField: "probeMaxMs",
  },
} as const satisfies Record<string, MetricDescriptor>;

/**
 * The summary's headline, in its order: a sentence per metric, and the headline tables' columns
 * (latency figures per case, memory figures per cell). report.md keeps these when it must shorten.
 */
export const HEADLINE: readonly JudgedMetric[] = [
  "acknowledgedMs",
  "completionMs",
  "peakHeapBytes",
  "peakRssBytes",
  "postGcHeapBytes",
];

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

/** The storm figures the guard can judge, by their --guard names, to their storm-row fields. */
export const STORM_METRICS = Object.fromEntries(ofMatrix("storm").map((k) => [k, METRIC_TABLE[k].stormField])) as {
  [K in StormMetric]: Table[K]["stormField"];
};
export const STORM_METRIC_NAMES: StormMetric[] = ofMatrix("storm");

/** The leak guard's figure: the candidate's post-GC heap slope per reconnect cycle. */
export const LEAK_METRIC = "leakSlopeBytes" satisfies KeysOf<"leak">;

/** A figure's unit on disk (ms or bytes for every paired and storm metric, by type). */
export function unitOf<M extends JudgedMetric>(metric: M): Table[M]["unit"] {
  return METRIC_TABLE[metric].unit;
}

/** The unit a figure is shown in (its scale's): "ms", "MiB", "KiB/cycle". */
export function displayUnit(metric: JudgedMetric): string {
  return metricOf(metric).scale.unit;
}

/** A figure as the tables show it, in its scale ("n/a" when not measured). */
export function figureText(metric: JudgedMetric, value: number | null): string {
  const { divisor, digits } = metricOf(metric).scale;
  return value === null ? "n/a" : (value / divisor).toFixed(digits);
}

/** The metrics of `keys` in the HEADLINE, in its order. */
export function headlineMetrics<K extends JudgedMetric>(keys: readonly K[]): K[] {
  return HEADLINE.filter((k): k is K => (keys as readonly JudgedMetric[]).includes(k));
}

/** Whether a metric is in the summary's headline. */
export function inHeadline(metric: JudgedMetric): boolean {
  return HEADLINE.includes(metric);
}

/** What the cells of a metric's matrix are called in a sentence ("in every case"). */
const CELL_NOUN: Record<Matrix, string> = { latency: "case", memory: "cell", storm: "cell", leak: "variant" };

/** How the summary words a metric, its own wording over the defaults, and what its cells are called. */
export function wordingOf(metric: JudgedMetric): Wording & { cells: string } {
  const d = metricOf(metric);
  const fallback: Wording = {
    subject: `{candidate}'s ${d.header}`,
    lower: "lower",
    higher: "higher",
    short: d.header,
    closing: d.header,
  };
  return { ...fallback, ...d.wording, cells: CELL_NOUN[d.matrix] };
}

/** A metric's medians' field in `--json`'s per-cell rows. */
export function jsonField(metric: JudgedMetric): string {
  return metricOf(metric).json ?? metric;
}

/** The unit a metric's floor states its absolute part in, by its name (--min-effect's per-metric parts). */
export function floorUnitOf(metric: string): FloorUnit {
  return metric in METRIC_TABLE && METRIC_TABLE[metric as JudgedMetric].unit === "ms" ? "ms" : "bytes";
}

/** A metric's practical floor under --min-effect (its parts and unit), or null: judged without one. */
export function floorOf(metric: JudgedMetric, minEffect: MinEffect): { size: FloorSize; unit: FloorUnit } | null {
  const rule = metricOf(metric).floor;
  const unit = floorUnitOf(metric);
  return rule ? { size: floorSize(metric, rule, unit, minEffect), unit } : null;
}

/**
 * The metric's floor rule at a cell's baseline median: the widest |ratio − 1| it calls no practical
 * change (0 for a metric without a floor), or null where the floor reaches the baseline (not judged).
 */
export function practicalTolerance(metric: JudgedMetric, baseline: number | null, minEffect: MinEffect): number | null {
  const floor = floorOf(metric, minEffect);
  return floor ? toleranceAt(floor.size, baseline) : 0;
}
