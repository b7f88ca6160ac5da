// What a reader may call a change (pure): each metric's practical floor (its rule in the metric table,
// results/metric-names.ts), below which a measured difference is "no practical change" when its
// interval lies inside it too (a 0.2% lower post-GC heap is real but means nothing; a median inside
// the floor with an interval reaching 20% is not "no change"), and the effects the change under test
// is expected to have (one chunk instead of four: the first chunk is the whole catch-up, so it arrives
// later), which are shown as such rather than as regressions.
import { aboveBaselineText, belowFloorText, type MinEffect } from "../results/metric-floor.js";
import { floorOf, type JudgedMetric, metricOf } from "../results/metric-names.js";

/**
 * Why a metric's median paired ratio is below its floor, with its size and the part of the floor it is
 * under ("−16.7% (0.24 MiB, under the 1 MiB floor)"), or null when the change is large enough to speak
 * of (or the metric has no floor). `baseline`: the baseline's median in the cell, in the metric's unit.
 */
export function belowFloor(
  metric: JudgedMetric,
  ratio: number,
  baseline: number | null,
  minEffect: MinEffect,
): string | null {
  const floor = floorOf(metric, minEffect);
  return floor ? belowFloorText(ratio, baseline, floor.size, floor.unit) : null;
}

/** Why a cell whose floor reaches its baseline is not judged ("floor above the baseline (…)"). */
export function notJudgedReason(metric: JudgedMetric, baseline: number | null, minEffect: MinEffect): string {
  const floor = floorOf(metric, minEffect);
  return floor && baseline !== null ? aboveBaselineText(floor.size, baseline, floor.unit) : "floor above the baseline";
}

/**
 * The expected effect of delivering the catch-up in fewer chunks: the first chunk then carries all of
 * it and arrives later. A higher figure the metric table marks laterWithFewerChunks (firstChunkMs)
 * where the candidate sends fewer chunks is that effect, not a regression; returns the reason to
 * show, or null.
 */
export function expectedEffect(
  metric: JudgedMetric,
  chunks: { baseline: number | null; candidate: number | null },
): string | null {
  if (metricOf(metric).laterWithFewerChunks !== true) return null;
  const { baseline, candidate } = chunks;
  if (baseline === null || candidate === null || candidate >= baseline) return null;
  return `expected: ${baseline} → ${candidate} chunks, so the first chunk carries more of the catch-up`;
}
