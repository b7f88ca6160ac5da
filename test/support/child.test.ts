// The shared child runner: output and exit status are collected; a child that overruns is killed and
// the run rejects (a hung child must fail the test, not pass as "exited with null").
import { describe, expect, it } from "vitest";
import { isAlive } from "../../scripts/sampler/procfs.js";
import { runNode } from "./child.js";

describe("runNode", () => {
  it("collects stdout, stderr and the exit code", async () => {
    const r = await runNode(["-e", 'process.stdout.write("out"); process.stderr.write("err"); process.exit(3)'], {
      timeoutMs: 20_000,
    });
    expect(r).toEqual({ code: 3, signal: null, stdout: "out", stderr: "err" });
  });

  it("kills a child that overruns and rejects naming it, with its stderr", async () => {
    const run = runNode(["-e", 'console.error("pid " + process.pid); setInterval(() => {}, 1000)'], {
      timeoutMs: 5_000,
      label: "the stuck child",
    });
    const error = await run.then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/^the stuck child did not exit within 5000 ms; stderr:\npid (\d+)/);
    const pid = Number(/pid (\d+)/.exec(error?.message ?? "")?.[1]);
    expect(pid).toBeGreaterThan(0);
    // SIGKILL was sent before the rejection; the kernel reaps it once Node collects the exit status.
    await expect.poll(() => isAlive(pid), { timeout: 5_000 }).toBe(false);
  });
});
