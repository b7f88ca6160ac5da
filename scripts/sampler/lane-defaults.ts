// The sampler lanes' default cadences, defined once: the sampler applies them and the option tables
// (scripts/options) show and enforce them. Pure.

/** The RSS lane's interval unless told otherwise, ms. */
export const DEFAULT_RSS_INTERVAL_MS = 10;

/** The heap lane asks at most this often: every inspector call interrupts the target's JavaScript. */
export const MIN_HEAP_INTERVAL_MS = 10;

/** The heap lane's default beside an RSS lane faster than MIN_HEAP_INTERVAL_MS. */
export const FAST_RSS_HEAP_INTERVAL_MS = 100;

/**
 * The heap lane's cadence when none is given: the RSS lane's, but at least 10 ms; beside an RSS lane
 * under 10 ms, 100 ms. A heap request costs the harness about 0.5 ms of CPU (two event-loop
 * wake-ups), so at 10 ms the heap lane alone takes about 5% of a core, and with a 1 ms RSS lane
 * (about 3%) the sampler took 9-14%; asking for a fast RSS lane means RSS is what is watched.
 */
export function defaultHeapIntervalMs(rssIntervalMs: number): number {
  return rssIntervalMs < MIN_HEAP_INTERVAL_MS ? FAST_RSS_HEAP_INTERVAL_MS : rssIntervalMs;
}
