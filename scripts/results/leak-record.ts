// The leak rows of results.json: one per variant, the slopes of post-GC heap, RSS and descriptors per reconnect cycle.

/** What was read after one reconnect cycle, once the clients closed and a GC was forced. */
export interface LeakPoint {
  cycle: number;
  postGcHeapBytes: number;
  rssBytes: number | null;
  fds: number | null;
}

export type LeakVerdict = "leak" | "no-leak" | "missing";

export interface LeakRow {
  variant: string;
  /** Cycles measured (after the warm-up). */
  cycles: number;
  warmupCycles: number;
  clients: number;
  slopeBytesPerCycle: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  rssSlopeBytesPerCycle: number | null;
  fdSlopePerCycle: number | null;
  thresholdBytesPerCycle: number;
  verdict: LeakVerdict;
  points: LeakPoint[];
  error: string | null;
}
