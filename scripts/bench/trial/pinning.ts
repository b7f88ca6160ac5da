// CPU pinning of memory trials: the target on one CPU, the harness (its main thread, the sampler's
// RSS thread, the clients' worker) on the others, so the clients' JSON parsing and the sampler do not
// take turns with the server on the same core. Done with util-linux's taskset (sched_setaffinity):
// the harness's own threads for the memory matrix, each target's threads once it is ready.
// The plan is pure; applying it runs taskset.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** What results.json records under run.pinning. */
export interface PinningInfo {
  enabled: boolean;
  /** CPUs of the target and of the harness (when enabled). */
  target?: number[];
  harness?: number[];
  /** Why not pinned: "--no-pin", "one CPU available", "taskset not found". */
  reason?: string;
  tool?: "taskset";
}

/** "0,2-4" -> [0, 2, 3, 4]. */
export function parseCpuList(text: string): number[] {
  const cpus: number[] = [];
  for (const part of text.trim().split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`not a CPU list: ${JSON.stringify(text)}`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    for (let c = lo; c <= hi; c++) cpus.push(c);
  }
  return cpus;
}

/** Pure: the target gets the last CPU the harness may use, the harness the rest; else why not. */
export function planPinning(available: readonly number[] | null, wanted: boolean): PinningInfo {
  if (!wanted) return { enabled: false, reason: "--no-pin" };
  if (available === null) return { enabled: false, reason: "taskset not found (util-linux)" };
  if (available.length < 2) return { enabled: false, reason: "one CPU available" };
  const target = available.at(-1) as number;
  return { enabled: true, target: [target], harness: available.filter((c) => c !== target), tool: "taskset" };
}

/** The CPUs the harness may use for pinning: its affinity when taskset is installed, else null. */
export function pinnableCpus(): number[] | null {
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore", timeout: 5000 });
  } catch {
    return null;
  }
  return affinityOf(process.pid);
}

/** The CPUs a process may run on (its main thread's affinity, from /proc: no taskset run), or null. */
export function affinityOf(pid: number): number[] | null {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m?.[1] ? parseCpuList(m[1]) : null;
  } catch {
    return null;
  }
}

/** Pins every thread of pid to cpus (one taskset run); false when it could not (the process is gone, taskset failed). */
export function pinThreads(pid: number, cpus: readonly number[]): boolean {
  try {
    execFileSync("taskset", ["-a", "-c", "-p", cpus.join(","), String(pid)], { stdio: "ignore", timeout: 5000 });
    // taskset -a exits 0 for a pid that is gone (no threads to walk): read the affinity back.
    return affinityOf(pid)?.join(",") === cpus.join(",");
  } catch {
    return false;
  }
}

/**
 * Pins the harness for the memory matrix; the returned function restores its affinity before.
 * A process started later inherits the harness's mask: targets are pinned again once ready.
 */
export function pinHarness(plan: PinningInfo): () => void {
  if (!plan.enabled || !plan.harness) return () => undefined;
  const before = affinityOf(process.pid);
  pinThreads(process.pid, plan.harness);
  return () => {
    if (before) pinThreads(process.pid, before);
  };
}
