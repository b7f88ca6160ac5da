// Large inputs render without overflowing the call stack: no array is spread into Math.max/min
// (a million latency rows; a merge of a 300,000-row runner summary).
import { describe, expect, it } from "vitest";
import type { SessionResult } from "../../scenarios/lib/session.js";
import { mergeSummaries, type RunnerSummary } from "../../scripts/report/merge/merged-report.js";
import { buildModel } from "../../scripts/report/model.js";
import { type LatencyRow, RESULTS_SCHEMA, type Results } from "../../scripts/results/schema.js";
import { maxValue, minValue } from "../../scripts/util/stats.js";
import { testRunInfo } from "../support/run-info.js";

describe("large inputs", () => {
  it("maxValue and minValue take a million values", () => {
    // 7919 is prime to 10^6: a permutation of 0 … 999,999.
    const xs = Array.from({ length: 1_000_000 }, (_, i) => (i * 7919) % 1_000_000);
    expect(maxValue(xs)).toBe(999_999);
    expect(minValue(xs)).toBe(0);
    expect(maxValue([])).toBe(Number.NEGATIVE_INFINITY);
  });

  it("a single target's million latency rows build a model", () => {
    const row = (trial: number): LatencyRow => ({
      case: "snapshot",
      variant: "solo",
      trial,
      ok: true,
      completionMs: 10 + (trial % 100),
      firstChunkMs: 5,
      chunks: 2,
      values: 2,
      bytes: 100,
      probeMs: 1 + (trial % 7),
      error: null,
    });
    const results: Results = {
      schema: RESULTS_SCHEMA,
      run: testRunInfo(),
      variants: [{ name: "solo", kind: "bundled", command: "x", role: "baseline" }],
      latency: Array.from({ length: 1_000_000 }, (_, i) => row(i + 1)),
      memory: [],
    };
    const model = buildModel(results);
    expect(model.latency[0]?.medians.probeMs.baseline).toBe(4);
  }, 120_000);

  it("merges a runner summary of 300,000 rows", () => {
    const rows: SessionResult[] = Array.from({ length: 300_000 }, (_, i) => ({
      ok: true,
      completionMs: 10 + (i % 50),
      firstChunkMs: 5,
      chunks: 1,
      values: 1,
      bytes: 1,
      probeMs: 2,
      error: null,
    }));
    const summary = {
      schema: "catchup-bench/k6-summary@1",
      scenario: "scaleout",
      sessions: rows.length,
      rows,
      figures: { completionMs: { count: rows.length, min: 10, max: 59, avg: 34.5, med: 34 }, probeMs: null, errors: 0 },
    } as RunnerSummary;
    const merged = mergeSummaries([{ source: "runner-1", summary }]);
    expect(merged.completion).toMatchObject({ count: 300_000, min: 10, max: 59 });
  }, 60_000);
});
