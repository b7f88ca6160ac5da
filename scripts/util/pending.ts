// What the process is waiting on, by name. A wait on a promise that can never settle, with nothing
// left in the event loop, ends the process; the CLI then says what it was waiting on (cli.ts runCli)
// instead of exiting 0 with nothing done.

const waits: string[] = [];

/** Settles like `promise`; while it is pending, `what` is listed by pendingWaits(). */
export async function waitingOn<T>(what: string, promise: Promise<T>): Promise<T> {
  waits.push(what);
  try {
    return await promise;
  } finally {
    waits.splice(waits.indexOf(what), 1);
  }
}

/** The waits still pending, oldest first. */
export function pendingWaits(): readonly string[] {
  return [...waits];
}
