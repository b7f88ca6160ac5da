// The RSS split of a memory cell (bytes): what the target's own process.memoryUsage() says its RSS
// holds, read on the heap lane's ticks: heap used within heap committed, external (what V8 accounts
// for outside its heap), remainder = rss − heapTotal − external: code, native allocations outside
// V8's accounting, allocator slack, what the inspector cannot see. Array buffers are recorded beside
// them but are no layer of their own: they count bytes allocated, not resident (Node 20 reserves up to
// 3 bytes per character for Buffer.from(string) and counts them all: the bundled server's 17 MiB
// frames count 49 MiB each), and they are inside external only for some Buffers (a Buffer.alloc is;
// the server's frames are not, and then sit in the remainder).

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

/** Pure: RSS less the heap committed and the external memory V8 accounts for. */
export function remainderOf(rss: number, heapTotal: number, external: number): number {
  return rss - heapTotal - external;
}
