// The RSS split of a memory cell (bytes): what the target's own process.memoryUsage() says its RSS
// holds, read on the heap lane's ticks. arrayBuffers (Buffers, the frames handed to the socket) is
// part of external; remainder = rss − heapTotal − external: code, native allocations outside V8's
// accounting, allocator slack, and anything else the inspector cannot see.

/** One heap-lane tick's split; t is when the answer arrived (ms from the sampler's origin). */
export interface RssSplitPoint {
  t: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  remainder: number;
}

export interface RssSplit {
  /** Heap-lane ticks that carried a split. */
  samples: number;
  /** Each component's own highest value over the window (they need not coincide). */
  peak: Omit<RssSplitPoint, "t">;
  /** The tick with the highest RSS the target reported (its RSS lane peak may fall between ticks). */
  atRssPeak: RssSplitPoint;
  /** The lowest remainder of any tick: negative when external or heapTotal counts pages not resident. */
  remainderMin: number;
  /** Ticks whose remainder was below 0. */
  negativeRemainders: number;
}
