// The target's CPU time (user + system), read through pidusage's /proc mode: the cost of a cell to the
// server, beside its memory. Clock-tick resolution (10 ms on common kernels): meaningful over a cell.
import pidusage from "pidusage";

// pidusage keeps /proc/PID/stat open between calls and closes it only when the entry expires; its
// clear() forgets the entry without closing the fd, so entries expire 2 s after the last call.
const PIDUSAGE_OPTIONS = { usePs: false, maxage: 2_000 } as const;

/** CPU time pid has used since it started (ms, user + system); rejects if pid is gone. */
export async function cpuTimeMs(pid: number): Promise<number> {
  const s = await pidusage(pid, PIDUSAGE_OPTIONS);
  return s.ctime;
}

/** cpuTimeMs, or null when pid is gone or unreadable. */
export async function cpuTimeMsOrNull(pid: number): Promise<number | null> {
  try {
    return await cpuTimeMs(pid);
  } catch {
    return null;
  }
}

/** CPU time used between two readings (ms), or null when either is missing. */
export function cpuDelta(before: number | null, after: number | null): number | null {
  return before === null || after === null ? null : Math.max(0, after - before);
}
