// The names of the metrics results.json judges: paired ratios per latency case, memory cell and storm cell.
import type { StormRow } from "./storm-record.js";

// acknowledgedMs (subscribe sent to the marker chunk's ACK sent) is the reference study's timer.
export const LATENCY_METRICS = ["completionMs", "acknowledgedMs", "firstChunkMs", "probeMs"] as const;
export const MEMORY_METRICS = [
  "peakHeapBytes",
  "peakRssBytes",
  "hwmRssBytes",
  "postGcHeapBytes",
  "retainedHeapBytes",
  "probeMaxMs",
] as const;
export type LatencyMetric = (typeof LATENCY_METRICS)[number];
export type MemoryMetric = (typeof MEMORY_METRICS)[number];
export type Metric = LatencyMetric | MemoryMetric;
/** Every metric the paired statistics and the regression guard know, in report order. */
export const METRICS: readonly Metric[] = [...LATENCY_METRICS, ...MEMORY_METRICS];

/** The memory metrics of the headline: sequential rounds decide a cell on these (bench/memory-rounds.ts). */
export const HEADLINE_MEMORY_METRICS: readonly Metric[] = ["peakHeapBytes", "peakRssBytes"];

/** The storm figures the guard can judge, by their --guard names. */
export const STORM_METRICS = {
  stormPeakRssBytes: "peakRssBytes",
  stormHwmRssBytes: "hwmRssBytes",
  stormPeakHeapBytes: "peakHeapBytes",
  stormCompletionMsP50: "completionMsP50",
  stormCompletionMsP99: "completionMsP99",
  stormAllCaughtUpMs: "allCaughtUpMs",
  stormProbeMaxMs: "probeMaxMs",
} as const satisfies Record<string, keyof StormRow>;
export type StormMetric = keyof typeof STORM_METRICS;
export const STORM_METRIC_NAMES = Object.keys(STORM_METRICS) as StormMetric[];

/** The leak guard's figure: the candidate's post-GC heap slope per reconnect cycle. */
export const LEAK_METRIC = "leakSlopeBytes";

/** Every figure the harness judges: paired metrics, storm figures and the leak slope. */
export type JudgedMetric = Metric | StormMetric | typeof LEAK_METRIC;

/** What a figure is measured in: its practical floor, reasons and tables use this unit and no other. */
export type MetricUnit = "ms" | "bytes" | "bytes/cycle";

/**
 * The one declaration of each judged figure's unit. A metric's matrix (latency or memory) says where
 * it is measured, not what in: probeMaxMs is measured in memory cells, in ms.
 */
export const METRIC_UNITS = {
  completionMs: "ms",
  acknowledgedMs: "ms",
  firstChunkMs: "ms",
  probeMs: "ms",
  peakHeapBytes: "bytes",
  peakRssBytes: "bytes",
  hwmRssBytes: "bytes",
  postGcHeapBytes: "bytes",
  retainedHeapBytes: "bytes",
  probeMaxMs: "ms",
  stormPeakRssBytes: "bytes",
  stormHwmRssBytes: "bytes",
  stormPeakHeapBytes: "bytes",
  stormCompletionMsP50: "ms",
  stormCompletionMsP99: "ms",
  stormAllCaughtUpMs: "ms",
  stormProbeMaxMs: "ms",
  [LEAK_METRIC]: "bytes/cycle",
} as const satisfies Record<JudgedMetric, MetricUnit>;

/** A figure's unit (ms or bytes for every paired and storm metric, by type). */
export function unitOf<M extends JudgedMetric>(metric: M): (typeof METRIC_UNITS)[M] {
  return METRIC_UNITS[metric];
}
