// The checkout cache's size bound and the words for it: the default bound from free disk, the one
// line that refuses a checkout the disk cannot hold, and the cache's size as a run prints it. Pure.

/** "560 MB", "1.7 GB", "12 kB": decimal units, as --checkout-cache-gb counts them. */
export function bytesText(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} kB`;
  return `${n} B`;
}

/**
 * Without --checkout-cache-gb the cache may hold half of what it could grow into: the free space of
 * its disk plus what it already holds. A filling disk thus shrinks the cache before it fills up.
 */
export function defaultCacheBytes(freeBytes: number, cacheBytes: number): number {
  return Math.floor((freeBytes + cacheBytes) / 2);
}

/** How big a new checkout will be, and why that estimate. */
export interface CheckoutEstimate {
  bytes: number;
  /** "the largest cached checkout", "the commit's files (before any build)". */
  basis: string;
}

/**
 * The new checkout's expected size: the largest checkout of this repository already cached (it has
 * its build output too), else the files of the commit (a lower bound: the build adds to it).
 */
export function estimateCheckout(cachedBytes: readonly number[], treeBlobBytes: number): CheckoutEstimate {
  const largest = Math.max(0, ...cachedBytes);
  return largest > 0
    ? { bytes: largest, basis: "the largest checkout in the cache, with its build" }
    : { bytes: treeBlobBytes, basis: "the commit's files, before any build" };
}

/** The refusal when the disk cannot hold the new checkouts; null when it can. */
export function diskRefusal(o: {
  freeBytes: number;
  need: CheckoutEstimate;
  checkouts: number;
  cacheRoot: string;
  repo: string;
}): string | null {
  const needBytes = o.need.bytes * o.checkouts;
  if (o.freeBytes >= needBytes) return null;
  const what = o.checkouts === 1 ? "a new checkout" : `${o.checkouts} new checkouts`;
  return `the disk holding ${o.cacheRoot} has ${bytesText(o.freeBytes)} free, and ${what} of ${o.repo} ${o.checkouts === 1 ? "needs" : "need"} about ${bytesText(needBytes)} (${bytesText(o.need.bytes)} each: ${o.need.basis}); free space (\`catchup-bench bench --repo ${JSON.stringify(o.repo)} --clean-checkouts\` removes its cached checkouts) and run again`;
}

/** "refs: checkout cache /r/.git/catchup-bench: 3 checkouts, 1.7 GB; it keeps at most 10 checkouts (--keep-checkouts) and 25.3 GB (...)". */
export function cacheSummary(o: {
  root: string;
  checkouts: number;
  bytes: number;
  keep: number;
  maxBytes: number;
  boundGiven: boolean;
}): string {
  const plural = (n: number) => `${n} checkout${n === 1 ? "" : "s"}`;
  const why = o.boundGiven ? "--checkout-cache-gb" : "half the free disk plus the cache; --checkout-cache-gb";
  return `refs: checkout cache ${o.root}: ${plural(o.checkouts)}, ${bytesText(o.bytes)}; it keeps at most ${plural(o.keep)} (--keep-checkouts) and ${bytesText(o.maxBytes)} (${why})`;
}
