// The regression guard, per cell: FAIL (exit 1) when a guarded cell's median paired ratio exceeds the
// ceiling, one line per cell stating the rule; no verdict (exit 3) for missing pairs; unknown metrics refused.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JUDGED_METRICS } from "../../scripts/results/metric-names.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { judge } from "../../scripts/verdicts/guard-verdict.js";
import { syntheticResults } from "./synthetic-run.js";

const dirs: string[] = [];
function results(options: Parameters<typeof syntheticResults>[1]) {
  const d = mkdtempSync(join(tmpdir(), "catchup-guard-"));
  dirs.push(d);
  return syntheticResults(d, options);
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// minPairs: 1 in these tests: they are about the ceiling rule; the minimum number of pairs has its own
// test (guard-min-pairs.unit.test.ts).
describe("judge", () => {
  it("passes a faster, leaner candidate with one PASS line per guarded cell and a summary", () => {
    const d = judge(results({}), { ceiling: 1.03, minPairs: 1, metrics: ["completionMs", "peakHeapBytes"] });
    expect(d.pass).toBe(true);
    expect(d.exitCode).toBe(EXIT.ok);
    expect(d.lines).toHaveLength(4 + 8 + 1);
    expect(d.lines[0]).toMatch(
      /^completionMs snapshot: median paired ratio 0\.\d{3} \(3 pairs, 95% CI [\d.–]+\); median <= ceiling 1\.03: PASS$/,
    );
    expect(d.lines[4]).toMatch(
      /^peakHeapBytes 1 KiB × 1, resume: median paired ratio [01]\.\d{3} \(1 pair\); median (<=|>) ceiling 1\.03: (PASS|FAIL)$/,
    );
  });

  it("fails every cell when the variants are swapped (the old path as candidate), naming them", () => {
    const d = judge(results({ swapped: true }), {
      ceiling: 1.03,
      minPairs: 1,
      metrics: ["completionMs", "peakHeapBytes"],
    });
    expect(d.pass).toBe(false);
    expect(d.exitCode).toBe(EXIT.regression);
    expect(d.failed).toEqual(
      expect.arrayContaining([
        "completionMs snapshot",
        "completionMs resume-none",
        "completionMs resume-one",
        "completionMs resume-many",
        "peakHeapBytes 8 KiB × 4, resume",
        "peakHeapBytes 8 KiB × 4, snapshot",
      ]),
    );
    expect(d.lines[0]).toMatch(/^completionMs snapshot: median paired ratio 1\.\d{3} .*median > ceiling 1\.03: FAIL$/);
    expect(d.lines.at(-1)).toMatch(/^guard: FAIL \(median above 1\.03\) in \d+ cells: completionMs snapshot; /);
  });

  it("fails a 5% regression against a 1.03 ceiling and passes it against 1.10", () => {
    const r = results({ candidateFactor: 1.05, trials: 5 });
    expect(judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] }).pass).toBe(false);
    expect(judge(r, { ceiling: 1.1, minPairs: 1, metrics: ["completionMs"] }).pass).toBe(true);
  });

  it("gives no verdict (exit 3) for a metric with no usable pairs rather than letting it through", () => {
    const r = results({});
    for (const row of r.latency) if (row.variant === "batched") row.ok = false;
    const d = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] });
    expect(d.pass).toBe(false);
    expect(d.exitCode).toBe(EXIT.noResult);
    expect(d.lines[0]).toBe(
      "completionMs snapshot: 0 of 3 planned pairs ok: MISSING (no verdict; --allow-missing judges the pairs there are)",
    );
  });

  it("refuses an unknown metric, listing the allowed ones", () => {
    // Every figure of the metric table, in its order.
    expect(() => judge(results({}), { ceiling: 1.03, minPairs: 1, metrics: ["completionTime"] })).toThrow(
      `unknown guard metric "completionTime"; allowed: ${JUDGED_METRICS.join(", ")}`,
    );
    expect(JUDGED_METRICS.slice(0, 3)).toEqual(["completionMs", "acknowledgedMs", "firstChunkMs"]);
  });
});
