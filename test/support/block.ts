// Test aid: block this thread's event loop (no timer, no socket read runs) for a while, as a stalled
// process would; the processes under test keep running meanwhile.
export function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: the stall under test
  }
}
