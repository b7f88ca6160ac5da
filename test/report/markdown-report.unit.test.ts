// report.md: the four tables with real figures, per-cell verdicts with honest intervals, failures,
// environment and "not measured" lines, and byte-for-byte reproducible rendering.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeReports } from "../../scripts/report/write.js";
import { columnOf, rowWhere, tableUnder } from "../support/table.js";
import { syntheticResults } from "./synthetic-run.js";

const dirs: string[] = [];
function runDir(): string {
  const d = mkdtempSync(join(tmpdir(), "catchup-report-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function section(md: string, heading: string): string {
  const start = md.indexOf(`## ${heading}`);
  expect(start, `section ${heading}`).toBeGreaterThanOrEqual(0);
  const next = md.indexOf("\n## ", start + 3);
  return md.slice(start, next < 0 ? undefined : next);
}

describe("report.md", () => {
  it("holds the latency table with medians, chunk counts and ratios", async () => {
    const dir = runDir();
    syntheticResults(dir);
    const { markdown, mdPath } = await writeReports(dir);
    expect(readFileSync(mdPath, "utf8")).toBe(markdown);
    const latency = tableUnder(markdown, "## Latency", "case");
    expect(columnOf(latency, "case")).toEqual(["snapshot", "resume-none", "resume-one", "resume-many"]);
    const snapshot = rowWhere(latency, "case", "snapshot");
    expect(snapshot["marker received, legacy median"]).toMatch(/^2\d\d\.\d ms$/);
    expect(snapshot["marker received, batched median"]).toMatch(/^1\d\d\.\d ms$/);
    expect(snapshot["chunks legacy → batched"]).toBe("2 → 1");
    expect(snapshot["ratio (95% CI)"]).toMatch(/^0\.\d{3} \(0\.\d{3}–0\.\d{3}\)$/);
    expect(rowWhere(latency, "case", "resume-one")["chunks legacy → batched"]).toBe("3 → 1");
    expect(rowWhere(latency, "case", "resume-many")).toMatchObject({
      "marker received, legacy median": expect.stringMatching(/^7\d\d\.\d ms$/),
      "marker received, batched median": expect.stringMatching(/^5\d\d\.\d ms$/),
      "chunks legacy → batched": "4 → 1",
    });
    // Every case had all its trials: the column moves to the small table of fixed conditions above.
    expect(latency.header).not.toContain("ok trials");
    expect(tableUnder(markdown, "## Latency", "ok trials").rows).toEqual([{ "ok trials": "3 / 3" }]);
  });

  it("holds the memory table in MiB with VmHWM, MiB through completion and the sample interval", async () => {
    const dir = runDir();
    syntheticResults(dir);
    const { markdown } = await writeReports(dir);
    const memory = tableUnder(markdown, "## Memory", "cell");
    for (const column of ["peak heap", "peak RSS", "VmHWM", "post-GC heap", "retained heap", "through completion"]) {
      expect(memory.header).toContain(column);
    }
    // 8 cells: {1, 8 KiB} x {1, 4} x {memory, snapshot}
    expect(columnOf(memory, "cell").filter((c) => /^(1|8) KiB × (1|4), (resume|snapshot)$/.test(c))).toHaveLength(8);
    const cell = rowWhere(memory, "cell", "8 KiB × 4, resume");
    expect(cell["peak heap"]).toMatch(/^\d+\.\d → \d+\.\d$/);
    expect(cell["peak RSS"]).toMatch(/^\d+\.\d → \d+\.\d$/);
    expect(tableUnder(markdown, "## Memory", "ok trials").rows).toEqual([{ "ok trials": "1 / 1" }]);
    // The sampler's cadence has a table of its own, both lanes, without a repeated "gap".
    const sampler = tableUnder(markdown, "## Sampler health");
    expect(rowWhere(sampler, "cell", "8 KiB × 4, resume")["RSS lane median / p99 / max (ms)"]).toMatch(
      /^10\.1 \/ 1\d\.\d \/ 1\d\.\d → 10\.1 \/ 1\d\.\d \/ 1\d\.\d$/,
    );
    expect(sampler.header).toContain("heap lane median / p99 / max (ms)");
    expect(markdown).not.toContain("; gap");
  });

  it("holds the probe table and, per metric, a per-cell verdict table with the pooled ratio under it", async () => {
    const dir = runDir();
    syntheticResults(dir);
    const { markdown } = await writeReports(dir);
    // One aggregation per figure, the same one the verdict beside it judges; the probe RPC named.
    const probe = tableUnder(markdown, "## Concurrent probe");
    expect(rowWhere(probe, "cell", "8 KiB × 4, snapshot")).toMatchObject({
      aggregation: "median of per-trial maxima",
      "probe latency": expect.stringMatching(/^\d+\.\d → \d+\.\d ms$/),
      "paired ratio (95% CI)": expect.stringMatching(/^[01]\.\d{3} \(1 pair, indicative\)$/),
      // The outcome and its ratio: one pair answers nothing.
      verdict: expect.stringMatching(/^UNKNOWN [01]\.\d{3}$/),
    });
    expect(rowWhere(probe, "cell", "resume-many")).toMatchObject({
      aggregation: "median of trials",
      "probe latency": expect.stringMatching(/^\d+\.\d → \d+\.\d ms$/),
    });
    const verdicts = section(markdown, "Verdicts per cell");
    expect(verdicts).toContain("### completionMs: marker received: completion time (latency cases)\n");
    const completion = tableUnder(markdown, "### completionMs");
    expect(completion.header).not.toContain("A/A band");
    // 3 pairs per case, candidate clearly faster: ranked lower, interval marked indicative
    expect(rowWhere(completion, "cell", "resume-many")).toMatchObject({
      "median paired ratio": expect.stringMatching(/^0\.\d{3}$/),
      "95% CI": expect.stringMatching(/^0\.\d{3}–0\.\d{3} \(indicative\)$/),
      pairs: "3 / 3",
      "smallest detectable change": expect.stringMatching(/^−\d+\.\d% \/ \+\d+\.\d% \(indicative\)$/),
      verdict: expect.stringMatching(/^DIFFERENT \(indicative\): lower 0\.\d{3}, interval below 1\.0$/),
    });
    expect(rowWhere(tableUnder(markdown, "### peakHeapBytes"), "cell", "8 KiB × 4, resume")).toMatchObject({
      "95% CI": "1 pair, no interval",
      pairs: "1 / 1",
      "smallest detectable change": "n/a",
      verdict: "UNKNOWN: not told from noise, 1 pair: too few to rank",
    });
    expect(verdicts).toMatch(
      /Pooled over all cells \(a summary, never a verdict\): median of 12 paired ratios batched\/legacy 0\.\d{3} \(95% CI/,
    );
    expect(verdicts).toContain("Intervals from fewer than 8 pairs are marked indicative");
  });

  it('calls a cell whose interval spans 1.0 "noise", never ranked', async () => {
    const dir = runDir();
    syntheticResults(dir, { candidateFactor: 1, seed: 4, trials: 8 });
    const { markdown } = await writeReports(dir);
    const rows = tableUnder(markdown, "### completionMs").rows;
    expect(rows).toHaveLength(4);
    let spanning = 0;
    for (const r of rows) {
      const [, low, high] = /^([\d.]+)–([\d.]+)/.exec(r["95% CI"] ?? "") ?? [];
      if (Number(low) <= 1 && Number(high) >= 1) {
        spanning++;
        expect(r.verdict).toMatch(
          /^UNKNOWN: not told from noise, interval spans 1\.0; could have seen −\d+\.\d% \/ \+\d+\.\d%$/,
        );
      }
    }
    expect(spanning).toBeGreaterThanOrEqual(2);
  });

  it("shows each cell's A/A band and refuses to rank a difference inside it", async () => {
    const dir = runDir();
    // A real 2% change, detected (interval above 1.0), on a machine whose A/A copies differ by ~6%.
    const results = syntheticResults(dir, { candidateFactor: 1.02, aa: true, trials: 8, seed: 2, latencyNoise: 0.01 });
    for (const r of results.aa?.latency ?? []) {
      if (r.completionMs !== null) r.completionMs *= 1.06;
    }
    writeFileSync(join(dir, "results.json"), JSON.stringify(results));
    const { markdown } = await writeReports(dir);
    const row = rowWhere(tableUnder(markdown, "### completionMs"), "cell", "resume-many");
    const [, low] = /^([\d.]+)–/.exec(row["95% CI"] ?? "") ?? [];
    expect(Number(low)).toBeGreaterThan(1); // the interval alone would call it a difference
    expect(Number(row["median paired ratio"])).toBeLessThan(1.06);
    expect(row).toMatchObject({
      "A/A band": expect.stringMatching(/^0\.9[0-4]\d–1\.0[6-9]\d$/),
      pairs: "8 / 8",
      "smallest detectable change": expect.stringMatching(/^−\d+\.\d% \/ \+\d+\.\d%$/),
      verdict: expect.stringMatching(
        /^UNKNOWN: no change told from noise, interval 1\.0\d\d–1\.0\d\d inside the A\/A band 0\.9\d\d–1\.0\d\d; could have seen /,
      ),
    });
  });

  it("shows a single target's figures in every table, without ratios, and no verdicts", async () => {
    const dir = runDir();
    syntheticResults(dir, { single: true });
    const { markdown, htmlPath } = await writeReports(dir);
    expect(markdown).toContain(
      "A single target, **legacy**: its figures, with nothing to compare them with (no ratios).",
    );
    const latency = tableUnder(markdown, "## Latency", "case");
    expect(latency.header).toEqual(["case", "marker received, legacy median", "chunks"]);
    expect(rowWhere(latency, "case", "resume-many")).toMatchObject({
      "marker received, legacy median": expect.stringMatching(/^7\d\d\.\d ms$/),
      chunks: "4",
    });
    expect(tableUnder(markdown, "## Latency", "ok trials").rows).toEqual([{ "ok trials": "3" }]);
    const memory = rowWhere(tableUnder(markdown, "## Memory", "cell"), "cell", "8 KiB × 4, resume");
    expect(memory["peak heap"]).toMatch(/^\d+\.\d$/);
    expect(memory["peak RSS"]).toMatch(/^\d+\.\d$/);
    expect(rowWhere(tableUnder(markdown, "## Concurrent probe"), "cell", "snapshot")).toMatchObject({
      aggregation: "median of trials",
      "probe latency": expect.stringMatching(/^\d+\.\d ms$/),
    });
    expect(markdown).not.toContain("→");
    expect(markdown).not.toContain("No latency trials");
    expect(markdown).not.toContain("## Verdicts per cell");
    const html = readFileSync(htmlPath, "utf8");
    expect(html).toContain("A single target");
    expect(rowWhere(tableUnder(html, "<h2>Latency", "case"), "case", "resume-many")).toMatchObject({
      "marker received, legacy median": expect.stringMatching(/^7\d\d\.\d ms$/),
    });
    expect(html).not.toContain("→");
  });

  it("states the guard's decision per cell at the top when the run was guarded", async () => {
    const dir = runDir();
    syntheticResults(dir, {
      candidateFactor: 1,
      caseFactor: { "resume-many": 1.2 },
      trials: 8,
      latencyNoise: 0.01,
      guard: { ceiling: 1.03, metrics: ["completionMs"] },
    });
    const { markdown } = await writeReports(dir);
    expect(markdown).toContain(
      "**Guard (median paired ratio per cell against ceiling 1.03): FAIL in completionMs resume-many.**",
    );
    const row = rowWhere(tableUnder(markdown, "### completionMs"), "cell", "resume-many");
    expect(row["median paired ratio"]).toMatch(/^1\.\d{3}$/);
    expect(row.verdict).toMatch(/^FAIL \(median 1\.\d{3} > ceiling 1\.03\)$/);
  });

  it("lists failed trials and keeps them out of the medians", async () => {
    const dir = runDir();
    syntheticResults(dir, { withFailure: true });
    const { markdown } = await writeReports(dir);
    expect(section(markdown, "Failed trials")).toContain(
      "- resume-one batched trial 1: socket closed before completion (code 1006)",
    );
    // The trials differ per case now: ok trials stays in the table, one figure per case.
    expect(rowWhere(tableUnder(markdown, "## Latency", "case"), "case", "resume-one")["ok trials"]).toBe("3 / 2");
    expect(rowWhere(tableUnder(markdown, "### completionMs"), "cell", "resume-one")).toMatchObject({
      pairs: "2 / 3",
      verdict: expect.stringMatching(/^UNKNOWN: missing, 2 of 3 pairs; could have seen /),
    });
  });

  it("ends with an environment line and a not-measured line", async () => {
    const dir = runDir();
    syntheticResults(dir);
    const { markdown } = await writeReports(dir);
    expect(markdown).toContain(
      "Environment: harness on Node v20.20.0 (the targets' runtimes are under Targets); CPU Synthetic CPU @ 2.20GHz; 2 cores; load average 0.52, 0.61, 0.70 (1, 5, 15 min, at start); commit 0123456789ab;",
    );
    expect(markdown).toMatch(
      /Not measured: a physical network \(all traffic is loopback, 127\.0\.0\.1\);.*1,000 projects, 1,000 post-cursor events/,
    );
  });

  it("states the fixtures the run recorded, one run per memory cell, and paths relative to the root", async () => {
    const dir = runDir();
    const results = syntheticResults(dir, { memoryTrials: 1 });
    results.run.config = { ...results.run.config, memoryTrials: 1 };
    results.run.projectRoot = "/home/someone/catchup";
    results.run.fixtures = {
      latency: { projects: 520, events: 300, scriptBytesMin: 64, scriptBytesMax: 64 },
      memory: [
        { projects: 2000, events: 1000, scriptBytesMin: 1024, scriptBytesMax: 1024 },
        { projects: 2000, events: 1000, scriptBytesMin: 8192, scriptBytesMax: 8192 },
      ],
    };
    for (const v of results.variants) v.command = `node /home/someone/catchup/dist/server-under-test/main.js --db {db}`;
    writeFileSync(join(dir, "results.json"), JSON.stringify(results));
    const { markdown } = await writeReports(dir);
    const line = markdown.split("\n").find((l) => l.startsWith("Not measured:")) ?? "";
    expect(line).toContain(
      "anything beyond the fixtures used (520 projects, 300 post-cursor events (scripts: 64 B latency) and 2,000 projects, 1,000 post-cursor events (scripts: 1 KiB, 8 KiB memory))",
    );
    expect(line).toContain("one run per memory cell");
    expect(line).not.toContain("1,000 projects");
    const variants = markdown.split("\n").find((l) => l.startsWith("Variants:")) ?? "";
    expect(variants).toContain("bundled: node dist/server-under-test/main.js --db {db}");
    expect(markdown).not.toContain("/home/someone");
  });

  it("says so beside the harness's commit when its build had uncommitted changes", async () => {
    const dir = runDir();
    const results = syntheticResults(dir);
    results.run.gitDirty = true;
    writeFileSync(join(dir, "results.json"), JSON.stringify(results));
    const { markdown } = await writeReports(dir);
    expect(markdown).toContain("; commit 0123456789ab with uncommitted changes; run started");
    expect(markdown).toMatch(/harness catchup-bench [^,]+, commit 0123456789ab with uncommitted changes\./);
  });

  it("warns when the machine was busy at the start, and only then", async () => {
    const dir = runDir();
    const results = syntheticResults(dir);
    const quiet = (await writeReports(dir)).markdown;
    expect(quiet).not.toContain("machine was busy");
    results.run.loadAverage = [5.5, 3, 2];
    writeFileSync(join(dir, "results.json"), JSON.stringify(results));
    const busy = (await writeReports(dir)).markdown;
    expect(busy).toContain("**The machine was busy when the run started (1-minute load average 5.50 on 2 cores)");
  });

  it("renders the same bytes every time and in any directory", async () => {
    const a = runDir();
    const b = runDir();
    syntheticResults(a, { seed: 9 });
    syntheticResults(b, { seed: 9 });
    const first = (await writeReports(a)).markdown;
    const again = (await writeReports(a)).markdown;
    const elsewhere = (await writeReports(b)).markdown;
    expect(again).toBe(first);
    expect(elsewhere).toBe(first);
    expect(readFileSync(join(a, "report.html"), "utf8")).toBe(readFileSync(join(b, "report.html"), "utf8"));
  });

  it("refuses a directory without results.json, naming it", async () => {
    const dir = runDir();
    await expect(writeReports(dir)).rejects.toThrow(/no results\.json in .*catchup-report-/);
  });
});
