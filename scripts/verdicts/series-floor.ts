// The smallest change a series' change point must show to be reported, per metric, in the metric's
// own unit: latency 2% (and 1 ms), memory 1% (and 2 MiB). A thin adapter over the metric names and
// units of results/metric-names.ts, so the metric descriptor table can take its place.
import { type JudgedMetric, METRIC_UNITS, type MetricUnit } from "../results/metric-names.js";

export interface ChangeFloor {
  unit: MetricUnit;
  /** Relative size, percent of the anchor's figure. */
  percent: number;
  /** Absolute size in `unit` (ms or bytes). */
  absolute: number;
}

const MIB = 1024 * 1024;
const FLOORS: Record<MetricUnit, Omit<ChangeFloor, "unit">> = {
  ms: { percent: 2, absolute: 1 },
  bytes: { percent: 1, absolute: 2 * MIB },
  "bytes/cycle": { percent: 1, absolute: 64 * 1024 },
};

/** The floor of a metric by its name; an unknown name is judged by the relative size alone (2%). */
export function changeFloor(metric: string): ChangeFloor {
  const unit = (METRIC_UNITS as Record<string, MetricUnit>)[metric as JudgedMetric];
  return unit ? { unit, ...FLOORS[unit] } : { unit: "ms", percent: 2, absolute: 0 };
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
