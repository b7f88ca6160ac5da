// The summary block a reviewer reads first: conditions, command, both headline tables and the verdict
// sentences in the first 30 lines (the comment-size budget: size-budget.unit.test.ts); figures that
// cannot mislead.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMENT_LIMIT } from "../../scripts/report/markdown.js";
import { buildModel } from "../../scripts/report/model.js";
import { closingLine } from "../../scripts/report/summary.js";
import { writeReports } from "../../scripts/report/write.js";
import type { MemoryRow, Results } from "../../scripts/results/schema.js";
import { columnOf, markdownTables, rowWhere, tableUnder } from "../support/table.js";
import { defaultRun } from "./synthetic-run.js";

const dirs: string[] = [];
function runDir(): string {
  const d = mkdtempSync(join(tmpdir(), "catchup-summary-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A summary sentence's classes: the one resting on `test` is not indicative, every other one is. */
function expectSignTestedOnly(sentence: string, test: string): void {
  const classes = sentence.split("; ");
  expect(classes.length).toBeGreaterThan(1);
  for (const c of classes) {
    if (c.includes(test)) expect(c).not.toContain("indicative");
    else expect(c).toContain("(indicative: 6 pairs)");
  }
}

/** Every memory cell stopped by the sequential rounds at 6 pairs, on the given sign test. */
function stoppedAtSix(r: Results, why: "clear" | "equivalent"): Results {
  const cells = [...new Set(r.memory.map((m) => `${m.scriptBytes}x${m.clients}/${m.mode}`))];
  r.memoryRounds = {
    budgetSeconds: 600,
    spentSeconds: 100,
    targetPairs: 8,
    cells: cells.map((cell) => ({ cell, pairs: 6, why })),
  };
  return r;
}

describe("the summary block", () => {
  it("holds conditions, command, both headline tables and the verdict sentences in the first 30 lines", async () => {
    const dir = runDir();
    const { markdown } = await writeReports(dir, defaultRun(dir));
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const head = markdown.split("\n").slice(0, 30).join("\n");
    expect(head).toMatch(/^# catchup-bench: batched vs legacy\n/);
    expect(head).toMatch(
      /\*\*Conditions:\*\* variants legacy \(.*\) vs batched \(.*\); 8 trials per latency case; 3 per memory cell; ACK delay 100 ms; hold 100 ms; sampling RSS every 10 ms, heap every 10 ms; practical floor per metric; machine Synthetic CPU @ 2\.20GHz, 2 cores, Node v20\.20\.0, load 0\.52 at start; harness catchup-bench 0\.1\.0, commit 0123456789ab\./,
    );
    expect(head).toContain("**Command:** `catchup-bench bench`");
    // Both timers, the study's first, each with its own paired ratio and interval (8 pairs: not indicative).
    const [latency, memory] = markdownTables(head);
    if (!latency || !memory) throw new Error("the summary block has no latency and memory tables");
    expect(latency.header.filter((h) => h.endsWith(", median ms"))).toEqual([
      "acknowledged, median ms",
      "marker received, median ms",
    ]);
    const many = rowWhere(latency, "case", "resume-many");
    expect(many).toMatchObject({
      "acknowledged, median ms": expect.stringMatching(/^8\d\d\.\d → 6\d\d\.\d$/),
      "marker received, median ms": expect.stringMatching(/^7\d\d\.\d → 5\d\d\.\d$/),
      chunks: "4 → 1",
      // The outcome and each timer's ratio (the two timers' ratios differ, so both are shown).
      verdict: expect.stringMatching(/^DIFFERENT: lower 0\.\d{3}( \/ DIFFERENT: lower 0\.\d{3})?$/),
    });
    // Each timer's ratio sits in the column after its medians (two columns share the header).
    const cells =
      head
        .split("\n")
        .find((l) => l.startsWith("| resume-many |"))
        ?.split(" | ") ?? [];
    expect([cells[2], cells[4]]).toEqual([
      expect.stringMatching(/^0\.\d{3} \(0\.\d{3}–0\.\d{3}\)$/),
      expect.stringMatching(/^0\.\d{3} \(0\.\d{3}–0\.\d{3}\)$/),
    ]);
    expect(memory.header.filter((h) => h.endsWith(", median MiB"))).toEqual([
      "peak heap, median MiB",
      "peak RSS, median MiB",
      "post-GC heap, median MiB",
    ]);
    expect(columnOf(memory, "cell").filter((c) => /^(1|8) KiB × (1|4), (resume|snapshot)$/.test(c))).toHaveLength(8);
    expect(head).toMatch(
      /^- batched completes \(marker acknowledged, the study's timer\): DIFFERENT: \d+–\d+% faster in every case\.$/m,
    );
    expect(head).toMatch(/^- batched's peak heap: .*\(indicative: 3 pairs\)/m);
    expect(markdown.indexOf("<details>")).toBeGreaterThan(head.length - 1);
  });

  it("says a cell stopped early by the sign test rests on it, not on an indicative interval", async () => {
    const dir = runDir();
    const r = stoppedAtSix(defaultRun(dir, { memoryTrials: 6 }), "clear");
    const { markdown } = await writeReports(dir, r);
    const heap = markdown.split("\n").find((l) => l.startsWith("- batched's peak heap:")) ?? "";
    expect(heap).toContain("(6 pairs, every ratio beyond the A/A band: sign test p ≤ 0.031)");
    // Each class the sign test decided is not called indicative; every other class on 6 pairs is.
    expectSignTestedOnly(heap, "sign test p");
    // Post-GC heap was not part of the rounds' test: its few pairs stay indicative where ranked.
    expect(markdown).not.toMatch(/post-GC heap: [^\n]*sign test/);
  });

  it("says which part of a class rests on the sign test when the class also holds cells with 8 pairs", async () => {
    const dir = runDir();
    const r = stoppedAtSix(defaultRun(dir, { memoryTrials: 8 }), "clear");
    r.run.config = { ...r.run.config, memoryTrials: 3 }; // planned 3, the rest added by the rounds
    const id = (m: { scriptBytes: number; clients: number; mode: string }) => `${m.scriptBytes}x${m.clients}/${m.mode}`;
    // Only 8 KiB × 4 resume stopped at 6; every other cell went on to 8.
    const early = (m: MemoryRow) => id(m) === "8192x4/memory" && m.trial > 6;
    r.memory = r.memory.filter((m) => !early(m));
    if (r.aa) r.aa.memory = r.aa.memory.filter((m) => !early(m));
    for (const c of r.memoryRounds?.cells ?? [])
      if (c.cell !== "8192x4/memory") Object.assign(c, { pairs: 8, why: "pairs" });
    const { markdown } = await writeReports(dir, r);
    const heap = markdown.split("\n").find((l) => l.startsWith("- batched's peak heap:")) ?? "";
    expect(heap).toMatch(
      /lower in [^;]*\(1 of them on 6 pairs, every ratio beyond the A\/A band: sign test p ≤ 0\.031\)/,
    );
  });

  it("says a cell stopped early for lying within the floor rests on the equivalence test, in the summary and the closing line", async () => {
    const dir = runDir();
    const r = stoppedAtSix(defaultRun(dir, { memoryTrials: 6, candidateFactor: 1 }), "equivalent");
    const { markdown } = await writeReports(dir, r);
    const heap = markdown.split("\n").find((l) => l.startsWith("- batched's peak heap:")) ?? "";
    expect(heap).toContain("(6 pairs, every ratio within the practical floor: equivalence sign tests p ≤ 0.016)");
    expectSignTestedOnly(heap, "equivalence sign tests");
    expect(markdown).toContain("; 6 to 8 (sequential) per memory cell;");
    // The farthest peak-heap cell is "noise", a verdict the equivalence test did not decide: indicative.
    expect(closingLine(buildModel(r))).toMatch(/peak heap [\d.]+× \([^)]*, indicative, noise\)/);
  });

  it("names each cell one way everywhere and says once what resume means", async () => {
    const dir = runDir();
    const { markdown } = await writeReports(dir, defaultRun(dir));
    expect(markdown).not.toMatch(/8192x4|8 KiB \/ 4|1024x1/);
    expect(markdown.match(/the reference study calls it "memory"/g)).toHaveLength(1);
  });

  it('calls a change below the practical floor "no practical change" when its interval lies inside the floor too', async () => {
    const dir = runDir();
    // 0.5% slower with 0.1% noise: an interval clear of 1.0, but below the 1% floor.
    const r = defaultRun(dir, { candidateFactor: 1.005, latencyNoise: 0.001 });
    const { markdown } = await writeReports(dir, r);
    const row = rowWhere(tableUnder(markdown, "### completionMs"), "cell", "resume-many");
    expect(Number(/^([\d.]+)–/.exec(row["95% CI"] ?? "")?.[1])).toBeGreaterThan(1);
    expect(row.verdict).toMatch(/^SAME: no practical change, \+0\.\d% \(\d\.\d ms, under the 1% floor\)$/);
    // The same run with no floor ranks it.
    const strict = await writeReports(dir, r, { minEffect: { percent: 0, bytes: 0, ms: 0 } });
    expect(rowWhere(tableUnder(strict.markdown, "### completionMs"), "cell", "resume-many").verdict).toEqual(
      expect.stringMatching(/^DIFFERENT: higher 1\.\d{3}, interval above 1\.0$/),
    );
  });

  it("shows a later first chunk with fewer chunks as the expected effect, not a regression", async () => {
    const dir = runDir();
    const r = defaultRun(dir);
    for (const row of r.latency) if (row.variant === "batched" && row.firstChunkMs !== null) row.firstChunkMs *= 2.3;
    const { markdown } = await writeReports(dir, r);
    expect(rowWhere(tableUnder(markdown, "### firstChunkMs"), "cell", "resume-many").verdict).toEqual(
      expect.stringMatching(
        /^DIFFERENT: higher 2\.\d{3}, expected: 4 → 1 chunks, so the first chunk carries more of the catch-up$/,
      ),
    );
  });
});
