// The bounded CI fuzz run: ~20 s, fixed seed, at least 10,000 frames against the real
// bundled server (compiled, own process) while a healthy client subscribes, dispatches and catches up.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { FRAME_KINDS } from "../../scripts/fuzz/frames.js";
import { formatFuzzReport } from "../../scripts/fuzz/fuzz-verdict.js";
import { runFuzz } from "../../scripts/fuzz/run.js";
import { HALF_OPEN_KINDS } from "../../scripts/fuzz/wsframe.js";
import { runCli } from "./support/harness.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("fuzz run against the bundled server", () => {
  it("survives 20 s of seeded malformed traffic: server up, healthy client intact, heap back, no unhandled errors", async () => {
    let serverPid = 0;
    const result = await runFuzz({
      seconds: 20,
      seed: 20261130,
      connections: 4,
      minFrames: 10_000,
      log: (line) => {
        const m = /server pid (\d+)/.exec(line);
        if (m) serverPid = Number(m[1]);
      },
    });
    const report = formatFuzzReport(result.figures, result).join("\n");
    // The report goes to the test log: these are the figures quoted in docs/measurements.md.
    console.log(report);
    for (const check of result.checks) expect(check.pass, `${check.name}: ${check.detail}`).toBe(true);
    expect(result.pass).toBe(true);
    expect(result.figures.framesSent).toBeGreaterThanOrEqual(10_000);
    // Every kind of bad traffic was actually sent, and every raw-socket fault was injected.
    expect(Object.keys(result.figures.outcomes).sort()).toEqual([...FRAME_KINDS].sort());
    for (const kind of HALF_OPEN_KINDS) expect(result.figures.halfOpen[kind], kind).toBeGreaterThan(0);
    // Oversized frames are refused with 1009, invalid UTF-8 with 1007: the limits are real.
    expect(Object.keys(result.figures.outcomes.oversized ?? {})).toEqual(["closed-1009"]);
    expect(Object.keys(result.figures.outcomes["invalid-utf8"] ?? {})).toEqual(["closed-1007"]);
    expect(result.figures.healthy.catchups).toBeGreaterThan(10);
    expect(result.figures.healthy.dispatched).toBeGreaterThan(10);
    // Nothing left behind.
    expect(serverPid).toBeGreaterThan(0);
    expect(alive(serverPid)).toBe(false);
    // The server ran on a fixture in a catchup-fuzz-* temp dir: no process may still name it.
    const left = spawnSync("pgrep", ["-f", "catchup-fuzz-"], { encoding: "utf8" }).stdout.trim();
    expect(left).toBe("");
  }, 150_000);

  it("`fuzz` on the command line prints frames, connections, outcomes by kind and heap, and exits 0 on pass", async () => {
    const r = await runCli(["fuzz", "--seconds", "1", "--seed", "7", "--connections", "2"], 60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^frames sent: \d+ .* in \d+ actions over \d+ connections$/m);
    expect(r.stdout).toMatch(/^outcomes by kind \(actions\):$/m);
    expect(r.stdout).toMatch(/^server heap \(post-GC\): before [\d.]+ MiB, after [\d.]+ MiB$/m);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("fuzz: PASS");
  }, 60_000);
});
