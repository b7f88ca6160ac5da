// One "promise with a deadline" helper for the harness, its benchmarks and its tests.

/** A wait that did not settle in time; the message names what was awaited and for how long. */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what}: timed out after ${ms} ms`);
  }
}

/**
 * Settles like promise, or rejects with a TimeoutError naming `what` if promise has not settled
 * within ms. The timer is cleared either way, so it never holds the process open. promise itself
 * is not cancelled: whoever owns the work stops it.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
