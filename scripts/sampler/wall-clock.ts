// Wall-clock stamps for samples that are merged with other machines' data (`catchup-bench sample`):
// t stays on the monotonic clock (intervals are measured there); "wall" is the epoch ms of the same
// moment, so marks from load runners on other hosts can be placed on one axis. The offset between the
// two clocks is re-read at every write and moved only when it changed by more than a millisecond (an
// NTP step or slew), so stamps within a run stay as smooth as t. Pure apart from reading the clocks.

/** Epoch ms of a monotonic t (ms from origin), as of the last sync(). */
export interface WallClock {
  /** Re-reads Date.now() against performance.now(); moves the offset when it drifted over 1 ms. */
  sync(): void;
  at(t: number): number;
}

export function wallClock(origin: number): WallClock {
  // timeOrigin + performance.now() is the wall clock with sub-millisecond resolution, as of process start.
  let offset = performance.timeOrigin + origin;
  return {
    sync() {
      // Date.now() is whole ms (floored): up to 1 ms below the true offset without any drift.
      const fresh = Date.now() - performance.now() + origin;
      if (Math.abs(fresh + 0.5 - offset) > 1) offset = fresh + 0.5;
    },
    at(t) {
      return Math.round((offset + t) * 10) / 10;
    },
  };
}

/** Adds "wall":ms as the last field of a one-line JSON object. Pure. */
export function stampWall(line: string, wall: number): string {
  return `${line.slice(0, -1)},"wall":${wall}}`;
}
