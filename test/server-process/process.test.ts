// The one process module (scripts/server-process/process.ts) on real child processes: a stop is SIGTERM to
// the whole group, a grace period, then SIGKILL; the group lives on after its top-level process exits.
import { describe, expect, it } from "vitest";
import { isAlive } from "../../scripts/sampler/procfs.js";
import { groupMembers } from "../../scripts/server-process/group.js";
import { spawnProcess } from "../../scripts/server-process/process.js";
import { waitReady } from "../../scripts/server-process/wait.js";

/** Starts `sh -c script` and waits for the line "up" (the script's traps are set by then). */
async function startSh(script: string, graceMs: number) {
  const proc = spawnProcess({ argv: ["sh", "-c", script], graceMs });
  await waitReady(proc, { line: (l) => (l === "up" ? true : null), timeoutMs: 10_000 });
  return proc;
}

describe("spawnProcess", () => {
  it("stop: SIGTERM first, so a trap's cleanup runs, and the exit is the process's own", async () => {
    const proc = await startSh(`trap 'echo cleaning; exit 7' TERM; echo up; while :; do sleep 0.05; done`, 10_000);
    const info = await proc.stop();
    expect(info).toEqual({ code: 7, signal: null });
    expect(proc.outputTail()).toContain("cleaning");
    expect(proc.running()).toBe(false);
  });

  it("stop: SIGKILL once the grace has passed, for a group that ignores SIGTERM", async () => {
    const proc = await startSh(`trap '' TERM; echo up; while :; do sleep 0.05; done`, 300);
    const members = groupMembers(proc.pid);
    expect(members.length).toBeGreaterThanOrEqual(1);
    const info = await proc.stop();
    expect(info.signal).toBe("SIGKILL");
    expect(members.filter(isAlive)).toEqual([]);
  });

  it("the group outlives its top-level process until stopped (no kill because the wrapper exited)", async () => {
    const proc = await startSh(`sleep 30 & echo up; exit 0`, 5000);
    const exit = await proc.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    const left = groupMembers(proc.pid);
    expect(left).toHaveLength(1); // the sleep, still running in the group
    expect(proc.running()).toBe(true);
    await proc.stop();
    expect(left.filter(isAlive)).toEqual([]);
    expect(proc.running()).toBe(false);
  });

  it("keeps the stderr tail and reports a command that cannot start as exit 127 before ready", async () => {
    const proc = spawnProcess({ argv: ["sh", "-c", "echo one >&2; echo two >&2; exit 3"] });
    await expect(waitReady(proc, { line: () => null, timeoutMs: 10_000 })).rejects.toThrow(
      "exited before it was ready (exit code 3)",
    );
    await proc.stop();
    expect(proc.stderrTail()).toBe("one\ntwo");
    const missing = spawnProcess({ argv: ["sh", "-c", "exec /nonexistent/server"] });
    expect((await missing.exited).code).toBe(127);
  });
});
