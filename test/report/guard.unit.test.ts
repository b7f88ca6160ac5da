// The regression guard: FAIL (exit 1) when the median paired ratio of a guarded metric exceeds the
// ceiling, one line per metric stating the rule; PASS otherwise; unknown metrics are refused.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { judge } from "../../scripts/report/guard.js";
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

describe("judge", () => {
  it("passes a faster, leaner candidate with one PASS line per metric", () => {
    const d = judge(results({}), { ceiling: 1.03, metrics: ["completionMs", "peakHeapBytes"] });
    expect(d.pass).toBe(true);
    expect(d.lines).toHaveLength(2);
    expect(d.lines[0]).toMatch(/^completionMs: median of 12 paired ratios 0\.\d{3} <= ceiling 1\.03: PASS$/);
    expect(d.lines[1]).toMatch(/^peakHeapBytes: median of 8 paired ratios 0\.\d{3} <= ceiling 1\.03: PASS$/);
  });

  it("fails when the variants are swapped (the old path as candidate), saying why", () => {
    const d = judge(results({ swapped: true }), { ceiling: 1.03, metrics: ["completionMs", "peakHeapBytes"] });
    expect(d.pass).toBe(false);
    expect(d.lines[0]).toMatch(/^completionMs: median of 12 paired ratios 1\.\d{3} > ceiling 1\.03: FAIL$/);
    expect(d.lines[1]).toMatch(/^peakHeapBytes: median of 8 paired ratios 1\.\d{3} > ceiling 1\.03: FAIL$/);
  });

  it("fails a 5% regression against a 1.03 ceiling and passes it against 1.10", () => {
    const r = results({ candidateFactor: 1.05, trials: 5 });
    expect(judge(r, { ceiling: 1.03, metrics: ["completionMs"] }).pass).toBe(false);
    expect(judge(r, { ceiling: 1.1, metrics: ["completionMs"] }).pass).toBe(true);
  });

  it("fails a metric with no usable pairs rather than letting it through", () => {
    const r = results({});
    for (const row of r.latency) if (row.variant === "batched") row.ok = false;
    const d = judge(r, { ceiling: 1.03, metrics: ["completionMs"] });
    expect(d.pass).toBe(false);
    expect(d.lines).toEqual(["completionMs: no paired ratios (no trial ok in both variants): FAIL"]);
  });

  it("refuses an unknown metric, listing the allowed ones", () => {
    expect(() => judge(results({}), { ceiling: 1.03, metrics: ["completionTime"] })).toThrow(
      /unknown guard metric "completionTime"; allowed: completionMs, firstChunkMs, probeMs, peakHeapBytes/,
    );
  });
});
