// The RSS split of a memory cell (bytes): what the target's own process.memoryUsage() says its RSS
// holds, read on the heap lane's ticks. Node documents arrayBuffers (Buffers, the frames handed to
// the socket) as part of external, and a Buffer made by hand shows so on Node 20; but in the bundled
// server the frames' backing stores show in arrayBuffers only (external stays at 3.5 MiB while
// arrayBuffers grows 49 MiB a frame). So a tick whose arrayBuffers exceeds external is read as the
// two being apart (outsideHeap). remainder = rss − heapTotal − array buffers − other external:
// code, native allocations outside V8's accounting, allocator slack, what the inspector cannot see.

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

/** Pure: V8's memory outside its heap as array buffers and the other external memory (see above). */
export function outsideHeap(external: number, arrayBuffers: number): { arrayBuffers: number; otherExternal: number } {
  return { arrayBuffers, otherExternal: external >= arrayBuffers ? external - arrayBuffers : external };
}

/** Pure: RSS less the heap committed and the memory outside it that V8 accounts for. */
export function remainderOf(rss: number, heapTotal: number, external: number, arrayBuffers: number): number {
  const o = outsideHeap(external, arrayBuffers);
  return rss - heapTotal - o.arrayBuffers - o.otherExternal;
}
