// `catchup-bench report <run>` through the real CLI in a child process: prints the tables, writes both
// reports, judges the guard per cell with --ceiling (exit 1 on FAIL, 3 without a verdict), and exits 2
// on bad input naming the flag.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { syntheticResults } from "./synthetic-run.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));
const dirs: string[] = [];
function runDir(options: Parameters<typeof syntheticResults>[1] = {}): string {
  const d = mkdtempSync(join(tmpdir(), "catchup-report-cli-"));
  dirs.push(d);
  syntheticResults(d, options);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, "report", ...args], { encoding: "utf8", timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("report command", () => {
  it("re-renders both reports, prints the Markdown, and judges nothing without --ceiling", () => {
    const dir = runDir();
    const r = cli(dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain("## Latency: subscribe to completion marker");
    // stdout is the Markdown alone (`report RUN > comment.md`); the paths and the closing line go to stderr.
    expect(r.out).toBe(`${readFileSync(join(dir, "report.md"), "utf8").trimEnd()}\n`);
    expect(r.err).toContain(`report.html: ${join(dir, "report.html")}`);
    expect(r.err.trim().split("\n").at(-1)).toMatch(/^batched: completion \(marker received\) 0\.\d\d× legacy \(/);
    expect(r.out + r.err).not.toMatch(/: (PASS|FAIL)\b|^guard:/m);
    expect(existsSync(join(dir, "report.html"))).toBe(true);
  });

  it("writes guard.txt and the guard section byte for byte as bench does", async () => {
    const { writeJudgedReports: renderReport } = await import("../../scripts/report/write.js");
    const { DEFAULT_MIN_EFFECT } = await import("../../scripts/results/metric-floor.js");
    const dir = runDir({ swapped: true, trials: 8 });
    const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8"));
    const guard = { ceiling: 1.03, metrics: ["completionMs"], confidence: false, allowMissing: false, minPairs: 8 };
    await renderReport(dir, results, guard, DEFAULT_MIN_EFFECT);
    const bench = {
      guard: readFileSync(join(dir, "guard.txt"), "utf8"),
      md: readFileSync(join(dir, "report.md"), "utf8"),
    };
    rmSync(join(dir, "guard.txt"));
    const r = cli(dir, "--ceiling", "1.03", "--guard", "completionMs");
    expect(r.code).toBe(1);
    expect(readFileSync(join(dir, "guard.txt"), "utf8")).toBe(bench.guard);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toBe(bench.md);
    expect(bench.md).toContain(`## Guard, per cell\n\n\`\`\`\n${bench.guard}\`\`\``);
  });

  it("prints a JSON summary with --json and writes the summary block to --summary-md and $GITHUB_STEP_SUMMARY", () => {
    const dir = runDir();
    const step = join(dir, "step.md");
    const r = spawnSync(process.execPath, [BIN, "report", dir, "--json", "--summary-md", join(dir, "s.md")], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, GITHUB_STEP_SUMMARY: step },
    });
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.schema).toBe("catchup-bench.summary/1");
    expect(
      json.cells.find((c: { metric: string; cell: string }) => c.metric === "completionMs" && c.cell === "resume-many")
        .verdict,
    ).toBe("lower");
    const block = readFileSync(join(dir, "s.md"), "utf8");
    expect(block).toMatch(/^# catchup-bench: batched vs legacy\n/);
    expect(block).not.toContain("<details>");
    expect(readFileSync(step, "utf8")).toBe(`${block}\n`);
  });

  it("exits 1 with a FAIL line per cell when the swapped run breaks the ceiling", () => {
    const r = cli(runDir({ swapped: true, trials: 8 }), "--ceiling", "1.03", "--guard", "completionMs");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /\ncompletionMs resume-many: median paired ratio 1\.\d{3} \(8 pairs, .*\); median > ceiling 1\.03: FAIL\n/,
    );
    expect(r.err).toContain(
      "guard: FAIL (median above 1.03) in 4 cells: completionMs snapshot; completionMs resume-none",
    );
  });

  it("exits 0 with PASS lines per cell for the default guard metrics", () => {
    const r = cli(runDir({ candidateFactor: 0.8, memoryTrials: 3 }), "--ceiling", "1.03", "--guard-min-pairs", "3");
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/completionMs snapshot: median paired ratio 0\.\d{3} .*: PASS/);
    expect(r.err).toMatch(/peakHeapBytes 8 KiB × 4, resume: median paired ratio 0\.\d{3} .*: PASS/);
    expect(r.err).toContain("guard: PASS (12 guarded cells, median <= 1.03 in each)");
  });

  it("exits 3 (no verdict) for a guarded cell with a missing pair, 0 with --allow-missing", () => {
    const dir = runDir({ candidateFactor: 0.8, withFailure: true });
    const r = cli(dir, "--ceiling", "1.03", "--guard", "completionMs", "--guard-min-pairs", "2");
    expect(r.code).toBe(3);
    expect(r.err).toContain("completionMs resume-one: 2 of 3 planned pairs ok: MISSING");
    expect(r.err).toContain("guard: NO VERDICT for completionMs resume-one");
    expect(
      cli(dir, "--ceiling", "1.03", "--guard", "completionMs", "--allow-missing", "--guard-min-pairs", "2").code,
    ).toBe(0);
  });

  it("exits 2 naming the flag and the allowed values for a bad --guard, --ceiling or run directory", () => {
    const dir = runDir();
    const g = cli(dir, "--ceiling", "1.03", "--guard", "completionMs,heap");
    expect(g.code).toBe(2);
    expect(g.err).toMatch(
      /--guard must be one of completionMs, acknowledgedMs, firstChunkMs, .*peakHeapBytes.* \(got "heap"\)/,
    );
    const c = cli(dir, "--ceiling", "abc");
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--ceiling must be a number from 0\.01 to 100/);
    const n = cli(dir, "--guard", "completionMs");
    expect(n.code).toBe(2);
    expect(n.err).toMatch(/--guard needs --ceiling/);
    const missing = cli(join(dir, "nope"));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no results\.json in .*nope/);
    expect(missing.err.trim().split("\n")).toHaveLength(1);
  });
});
