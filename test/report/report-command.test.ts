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
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("## Latency: subscribe to completion marker");
    expect(r.out).toContain(`report.html: ${join(dir, "report.html")}`);
    expect(r.out).not.toMatch(/PASS|FAIL/);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toBe(r.out.slice(0, r.out.indexOf("\nreport.md:")));
    expect(existsSync(join(dir, "report.html"))).toBe(true);
  });

  it("exits 1 with a FAIL line per cell when the swapped run breaks the ceiling", () => {
    const r = cli(runDir({ swapped: true }), "--ceiling", "1.03", "--guard", "completionMs");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /\ncompletionMs resume-many: median paired ratio 1\.\d{3} \(3 pairs, .*\); median > ceiling 1\.03: FAIL\n/,
    );
    expect(r.out).toContain(
      "guard: FAIL (median above 1.03) in 4 cells: completionMs snapshot, completionMs resume-none",
    );
  });

  it("exits 0 with PASS lines per cell for the default guard metrics", () => {
    const r = cli(runDir({ candidateFactor: 0.8, memoryTrials: 3 }), "--ceiling", "1.03");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/completionMs snapshot: median paired ratio 0\.\d{3} .*: PASS/);
    expect(r.out).toMatch(/peakHeapBytes 8192x4\/memory: median paired ratio 0\.\d{3} .*: PASS/);
    expect(r.out).toContain("guard: PASS (12 guarded cells, median <= 1.03 in each)");
  });

  it("exits 3 (no verdict) for a guarded cell with a missing pair, 0 with --allow-missing", () => {
    const dir = runDir({ candidateFactor: 0.8, withFailure: true });
    const r = cli(dir, "--ceiling", "1.03", "--guard", "completionMs");
    expect(r.code).toBe(3);
    expect(r.out).toContain("completionMs resume-one: 2 of 3 planned pairs ok: MISSING");
    expect(r.out).toContain("guard: NO VERDICT for completionMs resume-one");
    expect(cli(dir, "--ceiling", "1.03", "--guard", "completionMs", "--allow-missing").code).toBe(0);
  });

  it("exits 2 naming the flag and the allowed values for a bad --guard, --ceiling or run directory", () => {
    const dir = runDir();
    const g = cli(dir, "--ceiling", "1.03", "--guard", "completionMs,heap");
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/--guard must be one of completionMs, firstChunkMs, .*peakHeapBytes.* \(got "heap"\)/);
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
