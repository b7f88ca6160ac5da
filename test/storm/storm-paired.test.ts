// Storm cells repeat like memory cells and are judged per cell: two rounds, each running baseline,
// candidate and the baseline's A/A copy on fresh servers in a rotated order; the guard pairs trial t
// with trial t per cell and judges peak RSS and completion p99 there (report.md shows the pairs,
// results.json keeps the verdicts, and `report RUN --ceiling` re-judges the run as bench did).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { startBench } from "../bench/bench-child.js";
import { runCli } from "../fixtures/cli.js";

const N = 6;
let dir: string;
let runDir: string;
let results: Results;
let stderr: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "storm-paired-"));
  runDir = join(dir, "run");
  const child = startBench([
    "--quick",
    "--aa",
    "--no-latency",
    "--no-memory",
    "--storm",
    String(N),
    "--storm-trials",
    "2",
    "--script-bytes",
    "64",
    "--ack-delay-ms",
    "10",
    "--ceiling",
    "100",
    // 2 storm trials: the guard is asked to decide on 2 pairs (its default minimum is 8).
    "--guard-min-pairs",
    "2",
    "--fixtures-dir",
    join(dir, "fixtures"),
    "--out",
    runDir,
  ]);
  const { code } = await child.exit(170_000);
  stderr = child.stderr();
  expect(code, stderr).toBe(0);
  results = JSON.parse(readFileSync(join(runDir, "results.json"), "utf8")) as Results;
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("storm cells over two rounds", () => {
  it("runs baseline, candidate and the A/A copy once per round, the order rotated", () => {
    const rows = results.storm ?? [];
    expect(rows.map((r) => `${r.variant}/${r.trial}`).sort()).toEqual(
      ["A2/1", "A2/2", "batched/1", "batched/2", "legacy/1", "legacy/2"].sort(),
    );
    expect(rows.filter((r) => r.aa).map((r) => r.variant)).toEqual(["A2", "A2"]);
    for (const r of rows) expect(r.ok, r.error ?? "").toBe(N);
    // Rows are kept in run order: the rounds start with different variants.
    const first = (t: number) => rows.find((r) => r.trial === t)?.variant;
    expect(first(1)).not.toBe(first(2));
  });

  it("judges each storm cell's peak RSS and completion p99 on its two pairs, with an A/A band", () => {
    const guard = readFileSync(join(runDir, "guard.txt"), "utf8");
    for (const metric of ["stormPeakRssBytes", "stormCompletionMsP99"]) {
      const line = guard.split("\n").find((l) => l.startsWith(`${metric} 64x${N}:`));
      expect(line, guard).toBeDefined();
      expect(line).toContain("(2 pairs");
      expect(line).toContain("A/A band");
      expect(line).toMatch(/: PASS/);
    }
    expect(guard).toMatch(/guard: PASS/);
  });

  it("shows the paired result and the verdict per cell in report.md", () => {
    const md = readFileSync(join(runDir, "report.md"), "utf8");
    expect(md).toContain("### Storm cells paired across trials");
    expect(md).toMatch(new RegExp(`\\| 64x${N} \\| peak RSS \\(stormPeakRssBytes\\), guarded \\| 2/2 \\| \\d`));
    expect(md).toMatch(
      new RegExp(`\\| 64x${N} \\| completion p99 \\(stormCompletionMsP99\\), guarded \\| 2/2 \\| \\d`),
    );
  });

  it("keeps each storm cell's verdict in results.json, shaped like the other cells' verdicts", () => {
    const storm = (results.verdicts ?? []).filter((v) => v.metric.startsWith("storm"));
    expect(storm.map((v) => `${v.metric} ${v.cell}`)).toEqual([
      `stormPeakRssBytes 64x${N}`,
      `stormCompletionMsP99 64x${N}`,
    ]);
    for (const v of storm) {
      expect(v).toMatchObject({ guarded: true, pairs: 2, plannedPairs: 2, undecided: false, missing: [] });
      expect(["pass", "noise"]).toContain(v.verdict);
    }
  });

  it("re-judges the run with report --ceiling as bench did: the same guard lines and exit code", async () => {
    const r = await runCli(["report", runDir, "--ceiling", "100", "--guard-min-pairs", "2"], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const benchGuard = readFileSync(join(runDir, "guard.txt"), "utf8");
    // The guard's lines are on stderr, before the closing line; guard.txt is written the same.
    expect(r.stderr, r.stderr).toContain(benchGuard);
  });
});
