// The names of the metrics results.json judges: paired ratios per latency case, memory cell and storm cell.
import type { StormRow } from "./storm.js";

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
