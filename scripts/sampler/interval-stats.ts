// The achieved sampling cadence: median, p99 and max of the gaps between consecutive samples.
import type { IntervalStats } from "../results/schema.js";
import { quantile } from "../util/stats.js";

/** Differences between consecutive timestamps (ms). */
export function intervalsOf(times: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < times.length; i++) out.push((times[i] as number) - (times[i - 1] as number));
  return out;
}

/** Median, p99 (quantile type 7) and max of a non-empty list of durations (ms). */
export function distribution(values: readonly number[]): IntervalStats {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max) max = v; // no spread: an hour at 10 ms is 360,000 values
  return { median: quantile(values, 0.5), p99: quantile(values, 0.99), max };
}

/** Median, p99 and max of the intervals between consecutive sample times; null with fewer than two samples. */
export function intervalStats(times: readonly number[]): IntervalStats | null {
  const d = intervalsOf(times);
  return d.length === 0 ? null : distribution(d);
}
