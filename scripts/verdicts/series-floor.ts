// The smallest change a series' change point must show to be reported, per metric, in the metric's
// own unit: its floor rule's `series` part in the metric table (results/metric-names.ts).
import { type JudgedMetric, METRIC_TABLE, type MetricUnit, metricOf } from "../results/metric-names.js";

export interface ChangeFloor {
  unit: MetricUnit;
  /** Relative size, percent of the anchor's figure. */
  percent: number;
  /** Absolute size in `unit` (ms or bytes). */
  absolute: number;
}

/** The floor of a metric by its name; an unknown name, or a metric without a floor, by the relative size alone (2%). */
export function changeFloor(metric: string): ChangeFloor {
  const d = metric in METRIC_TABLE ? metricOf(metric as JudgedMetric) : null;
  return d?.floor ? { unit: d.unit, ...d.floor.series } : { unit: d?.unit ?? "ms", percent: 2, absolute: 0 };
}

/**
 * The least |log(after/before)| a change must reach: both the relative and the absolute size (the
 * practical floor's rule), the absolute one as a share of the anchor's own figure when it is known.
 */
export function floorLog(floor: Omit<ChangeFloor, "unit">, anchorEstimate: number | null): number {
  const relative = floor.percent / 100;
  const share = anchorEstimate !== null && anchorEstimate > 0 ? floor.absolute / anchorEstimate : 0;
  return Math.log(1 + Math.max(relative, share));
}
