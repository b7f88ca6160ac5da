// The achieved sampling cadence: median, p99 and max of the gaps between consecutive samples.
import type { IntervalStats } from "../results.js";
import { quantile } from "../stats.js";

/** Differences between consecutive timestamps (ms). */
export function intervalsOf(times: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < times.length; i++) out.push((times[i] as number) - (times[i - 1] as number));
  return out;
}

/** Median, p99 and max of the intervals between consecutive sample times; null with fewer than two samples. */
export function intervalStats(times: readonly number[]): IntervalStats | null {
  const d = intervalsOf(times);
  if (d.length === 0) return null;
  return { median: quantile(d, 0.5), p99: quantile(d, 0.99), max: Math.max(...d) };
}
