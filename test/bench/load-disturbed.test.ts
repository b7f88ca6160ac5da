// Load awareness end to end: busy-loop processes started beside the bench (not by it) take CPU the
// harness does not own, so every round is marked disturbed in results.json and the report names the
// busy machine as the reason of the cells' "noise" verdicts (2 pairs: too few to rank anyway, so the
// verdict itself is certain and the test is about its reason). --wait-quiet's pause is bounded and
// reported.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import type { Results } from "../../scripts/results/schema.js";
import { startBench } from "./bench-child.js";

let dir: string;
let results: Results;
let report: string;
let stderr: string;
const hogs: ChildProcess[] = [];

/** A busy-loop child that says when it spins; the test ends it. */
async function startHog(): Promise<ChildProcess> {
  const hog = spawn(process.execPath, ["-e", 'process.stdout.write("spinning\\n"); for (;;) {}'], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  hogs.push(hog);
  const [chunk] = (await Promise.race([
    once(hog.stdout as NodeJS.ReadableStream, "data"),
    once(hog, "exit").then(() => {
      throw new Error("hog exited before it spun");
    }),
  ])) as [Buffer];
  expect(String(chunk)).toContain("spinning");
  return hog;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bench-load-"));
  const fixture = join(dir, "small.sqlite");
  generateFixture({
    projects: 50,
    scriptBytesMin: 64,
    scriptBytesMax: 64,
    scriptsPerProject: 1,
    events: 20,
    seed: 1,
    out: fixture,
  });
  // One hog per core: whatever else runs here, the harness's windows see at least a core taken.
  for (let i = 0; i < availableParallelism(); i++) await startHog();
  const out = join(dir, "run");
  const child = startBench([
    "--no-memory",
    "--fixture",
    fixture,
    "--cases",
    "snapshot,resume-none",
    "--trials",
    "2",
    "--no-aa",
    "--ack-delay-ms",
    "20",
    "--wait-quiet",
    "2",
    "--out",
    out,
  ]);
  const { code } = await child.exit(120_000);
  stderr = child.stderr();
  expect(code, stderr).toBe(0);
  results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  report = readFileSync(join(out, "report.md"), "utf8");
}, 150_000);

afterAll(async () => {
  await Promise.all(
    hogs.map(async (h) => {
      if (h.exitCode === null && h.signalCode === null) {
        const exited = once(h, "exit");
        h.kill("SIGKILL");
        await exited;
      }
    }),
  );
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a CPU hog beside the bench", () => {
  it("gives every trial a load window with others' CPU in it", () => {
    expect(results.latency).toHaveLength(2 * 2 * 2);
    for (const r of results.latency) {
      expect(r.load, `${r.case} ${r.variant} ${r.trial}`).toBeTruthy();
      expect(r.load?.totalTicks).toBeGreaterThan(0);
      expect((r.load?.busyTicks ?? 0) - (r.load?.ownTicks ?? 0)).toBeGreaterThan(0);
    }
  });

  it("marks the rounds disturbed in results.json", () => {
    const load = results.load;
    expect(load?.thresholdCores).toBe(0.25);
    expect(load?.rounds.map((r) => [r.matrix, r.round])).toEqual([
      ["latency", 1],
      ["latency", 2],
    ]);
    for (const r of load?.rounds ?? []) {
      expect(r.disturbed).toBe(true);
      expect(r.otherCores + r.stealCores).toBeGreaterThanOrEqual(0.25);
      expect(r.disturbedCells.sort()).toEqual(["resume-none", "snapshot"]);
    }
  });

  it("says so in the report: disturbed rounds per cell and the busy machine as the reason of noise", () => {
    expect(report).toMatch(/\| disturbed rounds \| verdict \|/);
    // The verdict tables' rows of the cell, which give a reason (the latency and summary tables' rows do not).
    const snapshotRows = report
      .split("\n")
      .filter((l) => l.startsWith("| snapshot |") && l.includes("not told from noise, "));
    expect(snapshotRows.length).toBeGreaterThanOrEqual(3); // completionMs, firstChunkMs, probeMs
    for (const row of snapshotRows)
      expect(row).toMatch(
        /\| 2 \/ 2 \| UNKNOWN: not told from noise, 2 pairs: too few to rank; machine busy: 2 of 2 rounds disturbed/,
      );
    expect(report).toMatch(/Machine load, read from \/proc between trials .*latency: 2 of 2 rounds disturbed/);
  });

  it("waits at most --wait-quiet before each round, and reports that the machine did not settle", () => {
    for (const r of results.load?.rounds ?? []) {
      expect(r.settled).toBe(false);
      expect(r.waitedMs).toBeGreaterThanOrEqual(2000);
      expect(r.waitedMs).toBeLessThan(2000 + 5000); // one more window at most, not an unbounded wait
    }
    expect(stderr).toMatch(/--wait-quiet: latency round 1 started still busy after/);
    expect(report).toMatch(/--wait-quiet 2 s: waited .* before 2 rounds; 2 started still busy/);
  });
});
