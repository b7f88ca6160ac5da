// A memory trial's server started ahead runs at the lowest priority from its spawn (its threads
// inherit it), and gets the normal priority back thread by thread when its trial takes it. Real
// node processes; nice values read back from /proc.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canRestorePriority, IDLE_NICE, setThreadsNice } from "../../scripts/server-process/priority.js";
import { spawnProcess } from "../../scripts/server-process/process.js";
import { waitReady } from "../../scripts/server-process/wait.js";

/** Nice value of every thread of pid (field 19 of /proc/PID/task/TID/stat). */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  });
}

describe("a target's priority", () => {
  it("is the lowest from its spawn on every thread, and normal again once given back", async () => {
    // A node process starts its platform threads after exec: they must inherit the spawn's priority.
    const proc = spawnProcess({
      argv: [process.execPath, "-e", "console.log('up'); setInterval(() => {}, 1000)"],
      graceMs: 1000,
      nice: IDLE_NICE,
    });
    try {
      await waitReady(proc, { line: (l) => (l === "up" ? true : null), timeoutMs: 10_000 });
      const idle = threadNices(proc.pid);
      expect(idle.length).toBeGreaterThan(1);
      expect(new Set(idle)).toEqual(new Set([IDLE_NICE]));
      if (!canRestorePriority()) return; // only root may raise a priority back
      expect(setThreadsNice(proc.pid, 0)).toBe(true);
      expect(new Set(threadNices(proc.pid))).toEqual(new Set([0]));
    } finally {
      await proc.stop();
    }
  });
  it("cannot be set on a process that is gone", () => {
    expect(setThreadsNice(2 ** 22 + 12345, 0)).toBe(false);
  });
});
