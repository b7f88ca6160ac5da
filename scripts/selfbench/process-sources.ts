// bench:sampler part 5: the two sources of a target's RSS and CPU time side by side (process-stats.ts):
// what one read costs through /proc (statm for RSS, stat for CPU), through pidusage's own Linux
// reader (procfile) and through its ps mode; the cadence the ps lane keeps; and the step of CPU
// time each source reports, read from a process that spins.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import pidusage from "pidusage";
import type { IntervalStats } from "../results/schema.js";
import { clockTicks, statCpuTicks } from "../sampler/cpu.js";
import { distribution, intervalStats } from "../sampler/interval-stats.js";
import { PS_LANE_INTERVAL_MS } from "../sampler/process-stats.js";
import { openRssReader } from "../sampler/procfs.js";
import { startPsLane } from "../sampler/ps-lane.js";

export interface ReadCost {
  source: string;
  reads: number;
  /** Wall time of one read (ms): median, p99, max. */
  wallMs: IntervalStats;
  /** This process's CPU per read (µs); a ps run's own CPU is the child's, not counted here. */
  ownCpuUs: number;
}

async function timeReads(source: string, reads: number, read: () => unknown): Promise<ReadCost> {
  const wall: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < reads; i++) {
    const t0 = performance.now();
    await read();
    wall.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  return { source, reads, wallMs: distribution(wall), ownCpuUs: (cpu.user + cpu.system) / reads };
}

/** The cost of one read through each source, of pid, back to back. */
export async function readCosts(pid: number): Promise<ReadCost[]> {
  const reader = openRssReader(pid);
  try {
    return [
      await timeReads("/proc/PID/statm (RSS lane, fast path)", 2000, () => reader.read()),
      await timeReads("/proc/PID/stat (CPU time, fast path)", 2000, () =>
        statCpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8")),
      ),
      // Its Linux reader keeps each pid's /proc/PID/stat open between calls (and loops forever with
      // maxage 0, which keeps nothing): its own default, cleared after.
      await timeReads("pidusage, its Linux reader (procfile)", 200, () => pidusage(pid)),
      await timeReads("pidusage, ps mode (the portable path)", 50, () => pidusage(pid, { usePs: true, maxage: 0 })),
    ];
  } finally {
    reader.close();
    pidusage.clear();
  }
}

/** The ps lane on pid for ms: the interval it keeps and the slots it skipped. */
export async function psLaneCadence(
  pid: number,
  ms: number,
): Promise<{ intervalMs: number; achieved: IntervalStats | null; samples: number; missed: number }> {
  const times: number[] = [];
  let missed = 0;
  const lane = await startPsLane({
    pid,
    intervalMs: PS_LANE_INTERVAL_MS,
    origin: performance.now(),
    onBatch: (b) => {
      times.push(...b.t);
      missed = b.missed;
    },
  });
  await new Promise((r) => setTimeout(r, ms));
  await lane.stop();
  return { intervalMs: PS_LANE_INTERVAL_MS, achieved: intervalStats(times), samples: times.length, missed };
}

/** The smallest step between distinct CPU-time readings of a spinning child, per source (ms). */
export async function cpuSteps(ms: number): Promise<{ procMs: number | null; psMs: number | null }> {
  const child = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
  try {
    await once(child, "spawn");
    const pid = child.pid as number;
    const hz = clockTicks();
    const proc = new Set<number>();
    const ps = new Set<number>();
    const end = performance.now() + ms;
    while (performance.now() < end) {
      proc.add((statCpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8")) * 1000) / hz);
      ps.add((await pidusage(pid, { usePs: true, maxage: 0 })).ctime);
      await new Promise((r) => setTimeout(r, 20));
    }
    const step = (values: Set<number>) => {
      const v = [...values].sort((a, b) => a - b);
      let min: number | null = null;
      for (let i = 1; i < v.length; i++)
        min = Math.min(min ?? Number.POSITIVE_INFINITY, (v[i] as number) - (v[i - 1] as number));
      return min;
    };
    return { procMs: step(proc), psMs: step(ps) };
  } finally {
    child.kill("SIGKILL");
  }
}
