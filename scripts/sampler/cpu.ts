// The target's CPU time (user + system), read from /proc/PID/stat: the cost of a cell to the server,
// beside its memory. Clock-tick resolution (10 ms on common kernels): meaningful over a cell. One
// synchronous read of a small file, no child process and no cache between calls.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { processStatsSource, psReading } from "./process-stats.js";

let ticksPerSecond: number | null = null;

/** The kernel's clock ticks per second (USER_HZ), asked once of getconf; 100 when it cannot say. */
export function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 5000 }).trim());
    } catch {
      ticksPerSecond = 0;
    }
    if (!Number.isFinite(ticksPerSecond) || ticksPerSecond <= 0) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** utime + stime of a /proc/PID/stat line, in clock ticks (fields 14 and 15, counted after "(comm) "). */
export function statCpuTicks(stat: string): number {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(f[11]) + Number(f[12]);
  if (!Number.isFinite(ticks)) throw new Error("unreadable /proc stat line");
  return ticks;
}

/** CPU time pid has used since it started (ms, user + system); rejects if pid is gone. Through ps: 1 s steps on Linux. */
export async function cpuTimeMs(pid: number): Promise<number> {
  if (processStatsSource() === "ps") return (await psReading(pid)).cpuMs;
  const hz = clockTicks();
  return (statCpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8")) * 1000) / hz;
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
