// Three outcomes per cell, as Chromium's Pinpoint gives its comparisons (pure): DIFFERENT when the
// interval excludes 1.0 and the median leaves the practical band, SAME when the whole interval lies
// inside the practical floor, UNKNOWN otherwise (more pairs could still tell; the cell's detectable
// change says how small a change it could have seen). The practical band is the practical floor
// (--min-effect) widened to the cell's A/A band: a change no larger than the baseline's difference from
// its own copy in the same rounds is not ranked DIFFERENT. An interval inside the A/A band but not the
// floor is not SAME: a wide band would call real changes "the same" (bench:power measured it).
import type { Outcome } from "../results/outcome.js";
import type { Interval } from "../util/stats.js";

/** The band a change must leave to be ranked: [min(1 - t, A/A low), max(1 + t, A/A high)]. */
export function practicalBand(tolerance: number, band: Interval | null): Interval {
  return {
    low: Math.min(1 - tolerance, band?.low ?? 1),
    high: Math.max(1 + tolerance, band?.high ?? 1),
  };
}

/**
 * The outcome of a cell from its median paired ratio and the interval it is judged on; `enough`:
 * the cell has the pairs to rank anything (fewer is UNKNOWN whatever the figures).
 */
export function outcomeOf(o: {
  median: number;
  interval: Interval;
  practical: Interval;
  tolerance: number;
  enough: boolean;
}): Outcome {
  if (!o.enough) return "UNKNOWN";
  const { median, interval, practical, tolerance } = o;
  const excludesOne = interval.low > 1 || interval.high < 1;
  if (excludesOne && (median < practical.low || median > practical.high)) return "DIFFERENT";
  if (Math.abs(interval.low - 1) < tolerance && Math.abs(interval.high - 1) < tolerance) return "SAME";
  return "UNKNOWN";
}
