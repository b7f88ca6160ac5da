// From per-cycle readings of one server to a leak row: slopes of post-GC heap, RSS and open
// descriptors per reconnect cycle (Theil–Sen with Sen's 95% interval), and the verdict. Pure.

import type { LeakPoint, LeakRow } from "../results/leak-record.js";
import { theilSen } from "./slope.js";

/** Fewer measured cycles than this give no slope worth a verdict (Sen's interval needs about 10). */
export const MIN_LEAK_CYCLES = 10;

function slopeOf(points: LeakPoint[], pick: (p: LeakPoint) => number | null): number | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const p of points) {
    const y = pick(p);
    if (y === null) continue;
    xs.push(p.cycle);
    ys.push(y);
  }
  return xs.length >= 2 ? theilSen(xs, ys).slope : null;
}

/**
 * The leak row of one variant: points of cycles <= warmupCycles are reported but not fitted. The
 * verdict is `leak` when the heap slope's lower 95% bound exceeds the threshold, `missing` when too
 * few cycles were measured (or an error cut the run short), otherwise `no-leak`.
 */
export function leakRow(
  variant: string,
  clients: number,
  points: LeakPoint[],
  warmupCycles: number,
  thresholdBytesPerCycle: number,
  error: string | null = null,
): LeakRow {
  const measured = points.filter((p) => p.cycle > warmupCycles);
  const base = {
    variant,
    cycles: measured.length,
    warmupCycles,
    clients,
    thresholdBytesPerCycle,
    points,
    error,
  };
  if (measured.length < MIN_LEAK_CYCLES) {
    return {
      ...base,
      slopeBytesPerCycle: null,
      ciLow: null,
      ciHigh: null,
      rssSlopeBytesPerCycle: null,
      fdSlopePerCycle: null,
      verdict: "missing",
      error:
        error ?? `only ${measured.length} cycles measured after the warm-up; a slope needs at least ${MIN_LEAK_CYCLES}`,
    };
  }
  const heap = theilSen(
    measured.map((p) => p.cycle),
    measured.map((p) => p.postGcHeapBytes),
  );
  return {
    ...base,
    slopeBytesPerCycle: heap.slope,
    ciLow: heap.ciLow,
    ciHigh: heap.ciHigh,
    rssSlopeBytesPerCycle: slopeOf(measured, (p) => p.rssBytes),
    fdSlopePerCycle: slopeOf(measured, (p) => p.fds),
    verdict: heap.ciLow > thresholdBytesPerCycle ? "leak" : "no-leak",
  };
}
