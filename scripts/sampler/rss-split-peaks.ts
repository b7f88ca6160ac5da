// Pure: the RSS split's peaks and its value at the RSS peak, accumulated tick by tick.
import { type RssSplit, type RssSplitPoint, remainderOf } from "../results/rss-split-record.js";
import type { MemoryUsageReading } from "./memory-usage.js";

/** Pure: one tick's split (remainder: results/rss-split-record.ts remainderOf). */
export function splitPoint(t: number, r: MemoryUsageReading): RssSplitPoint {
  return {
    t,
    rss: r.rss,
    heapUsed: r.usedSize,
    heapTotal: r.totalSize,
    external: r.external,
    arrayBuffers: r.arrayBuffers,
    remainder: remainderOf(r.rss, r.totalSize, r.external),
  };
}

const KEYS = ["rss", "heapUsed", "heapTotal", "external", "arrayBuffers", "remainder"] as const;

export function rssSplitTracker() {
  let samples = 0;
  let peak: Omit<RssSplitPoint, "t"> | null = null;
  let atRssPeak: RssSplitPoint | null = null;
  let remainderMin = Number.POSITIVE_INFINITY;
  let negative = 0;
  return {
    add(p: RssSplitPoint) {
      samples++;
      if (!peak)
        peak = {
          rss: p.rss,
          heapUsed: p.heapUsed,
          heapTotal: p.heapTotal,
          external: p.external,
          arrayBuffers: p.arrayBuffers,
          remainder: p.remainder,
        };
      for (const k of KEYS) if (p[k] > peak[k]) peak[k] = p[k];
      if (!atRssPeak || p.rss > atRssPeak.rss) atRssPeak = p;
      if (p.remainder < remainderMin) remainderMin = p.remainder;
      if (p.remainder < 0) negative++;
    },
    /** The split over the ticks added; null with none. */
    summary(): RssSplit | null {
      if (!peak || !atRssPeak) return null;
      return { samples, peak, atRssPeak, remainderMin, negativeRemainders: negative };
    },
  };
}
