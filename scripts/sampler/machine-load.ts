// The machine's load as the harness reads it between trials: /proc/stat's CPU counters (busy and
// steal), /proc/loadavg, and the CPU of the harness's own process tree (itself, its live descendants
// found through /proc/PID/task/PID/children, and the children it already reaped, through cutime and
// cstime). Synchronous, a few small reads: it runs between trials, never inside a timed part.
import { readFileSync } from "node:fs";
import type { LoadSnapshot } from "../results/load-record.js";

/** The "cpu" line of /proc/stat: busy (user + nice + system), steal and every field summed (ticks). */
export function parseProcStatCpu(text: string): { busy: number; steal: number; total: number; cores: number } | null {
  const lines = text.split("\n");
  const all = lines.find((l) => l.startsWith("cpu "));
  if (!all) return null;
  const f = all.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , , , steal = 0] = f;
  // guest and guest_nice (fields 9 and 10) are already inside user and nice: not summed twice.
  const total = f.slice(0, 8).reduce((s, x) => s + (Number.isFinite(x) ? x : 0), 0);
  const cores = lines.filter((l) => /^cpu\d+ /.test(l)).length;
  return { busy: user + nice + system, steal, total, cores: Math.max(1, cores) };
}

/** utime + stime + cutime + cstime of a /proc/PID/stat line (ticks): the process and its reaped children. */
export function parseTreeTicks(stat: string): number {
  // After "(comm) " (the name may hold spaces and parens): state is field 3, utime field 14.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [11, 12, 13, 14].reduce((s, i) => s + (Number(f[i]) || 0), 0);
}

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null; // the process ended meanwhile
  }
}

/**
 * Direct children of pid that its main thread started (Node and libuv spawn from the loop thread).
 * Reading every thread's list costs about 0.2 ms a thread on a busy machine; a child started by
 * another thread is then counted as another process's CPU: the load is over-, never under-stated.
 */
function childrenOf(pid: number): number[] {
  return (read(`/proc/${pid}/task/${pid}/children`) ?? "")
    .split(" ")
    .filter((c) => c.trim() !== "")
    .map(Number);
}

/** CPU ticks of rootPid's tree: each live process's own and reaped children's time. */
export function treeTicks(rootPid: number): number {
  let ticks = 0;
  const queue = [rootPid];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const stat = read(`/proc/${pid}/stat`);
    if (stat === null) continue;
    ticks += parseTreeTicks(stat);
    queue.push(...childrenOf(pid));
  }
  return ticks;
}

/** One reading of the machine and of the harness's own tree; null where /proc cannot be read. */
export function readLoadSnapshot(rootPid = process.pid): LoadSnapshot | null {
  const stat = read("/proc/stat");
  const cpu = stat === null ? null : parseProcStatCpu(stat);
  if (!cpu) return null;
  const loadAvg1 = Number((read("/proc/loadavg") ?? "").split(" ")[0]);
  return {
    t: performance.now(),
    cores: cpu.cores,
    busyTicks: cpu.busy,
    stealTicks: cpu.steal,
    totalTicks: cpu.total,
    ownTicks: treeTicks(rootPid),
    loadAvg1: Number.isFinite(loadAvg1) ? loadAvg1 : 0,
  };
}
