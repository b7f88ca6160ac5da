// Each metric is judged against its own practical floor (its rule in the metric table), not one floor
// per unit: a retained heap of about 1 MiB against a 1 MiB floor could never be lower, a probe reply
// of 1.5 ms against 1 ms was "the same" whatever its interval, and a post-GC heap of 14 MiB hid a
// consistent −1.7%. A floor that reaches the baseline is not applied: the cell is not judged.
// --min-effect replaces parts of the floors, for every metric or for one.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseMinEffect } from "../../scripts/options/min-effect.js";
import { verdictText } from "../../scripts/report/verdict-wording.js";
import { writeReports } from "../../scripts/report/write.js";
import { DEFAULT_MIN_EFFECT, type MinEffect, minEffectFromConfig } from "../../scripts/results/metric-floor.js";
import { floorOf, type Metric } from "../../scripts/results/metric-names.js";
import { summariseRatios } from "../../scripts/util/stats.js";
import { decideCell } from "../../scripts/verdicts/cells.js";
import { defaultRun } from "../report/synthetic-run.js";
import { columnOf, tableUnder } from "../support/table.js";

const MIB = 1024 * 1024;

/** A cell of 8 pairs around `factor`, spread ±`spread`, against a narrow A/A band, judged unguarded. */
function judge(
  metric: Metric,
  baseline: number,
  factor: number,
  spread: number,
  floor: MinEffect = DEFAULT_MIN_EFFECT,
  band = { low: 0.996, high: 1.004 },
) {
  const ratios = [-4, -3, -2, -1, 1, 2, 3, 4].map((k) => factor * (1 + (k * spread) / 4));
  const summary = summariseRatios(ratios, { resamples: 1000, seed: 3 });
  return decideCell(
    { metric, cell: "8192x4/memory", summary, plannedPairs: 8, band, baselineMedian: baseline, floor },
    null,
  );
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("a practical floor per metric", () => {
  it("calls a 17% lower retained heap of 1.46 MiB lower, with a tight interval", () => {
    expect(verdictText(judge("retainedHeapBytes", 1.46 * MIB, 0.829, 0.004))).toBe(
      "DIFFERENT: lower 0.829, interval below 1.0",
    );
  });

  it("calls a 1.7% lower post-GC heap of 14.4 MiB lower", () => {
    expect(verdictText(judge("postGcHeapBytes", 14.4 * MIB, 0.983, 0.001))).toBe(
      "DIFFERENT: lower 0.983, interval below 1.0",
    );
  });

  it("does not call a probe reply of 1.5 ms whose interval reaches ±30% no practical change", () => {
    const v = judge("probeMs", 1.5, 0.95, 0.3, DEFAULT_MIN_EFFECT, { low: 0.258, high: 3.883 });
    expect([v.outcome, v.verdict]).toEqual(["UNKNOWN", "noise"]);
  });

  it("still calls a change under the metric's floor, its interval inside it, no practical change", () => {
    // A snapshot cell's retained heap: 1.2% (10 KiB) lower, under the 64 KiB part.
    expect(verdictText(judge("retainedHeapBytes", 0.85 * MIB, 0.988, 0.01))).toMatch(
      /^SAME: no practical change, −1\.2% \(10\.\d KiB, under the 64 KiB floor\)$/,
    );
  });

  it("does not judge a cell whose floor reaches its baseline: no lower figure could leave it", () => {
    const v = judge("retainedHeapBytes", 0.85 * MIB, 0.83, 0.004, parseMinEffect("1MiB"));
    expect(v).toMatchObject({ verdict: "not-judged", outcome: "UNKNOWN", undecided: true });
    expect(verdictText(v)).toBe(
      "UNKNOWN: not judged: floor above the baseline (the 1 MiB floor, a baseline median of 0.85 MiB)",
    );
  });

  it("says so in the summary, for every cell where the floor reaches the baseline", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catchup-floors-"));
    dirs.push(dir);
    // The synthetic run's post-GC heap is 38.4 MiB: a 64 MiB floor reaches it in every cell.
    const { markdown } = await writeReports(dir, defaultRun(dir), {
      minEffect: parseMinEffect("postGcHeapBytes=64MiB"),
    });
    expect(markdown).toContain(
      "- batched's post-GC heap: UNKNOWN: not judged: floor above the baseline in every cell.",
    );
    expect(markdown).toContain("practical floor per metric, with postGcHeapBytes 64 MiB;");
    const memory = tableUnder(markdown, "# catchup-bench", "pairs");
    expect(columnOf(memory, "verdict").every((v) => v.endsWith("post-GC UNKNOWN: not judged"))).toBe(true);
  });
});

describe("--min-effect replaces parts of the floors", () => {
  it("for every metric in a unit, or for one metric, that one first", () => {
    const m = parseMinEffect("2%,2MiB,probeMs=0.5ms,peakHeapBytes=3MiB,retainedHeapBytes=10%");
    expect(floorOf("probeMs", m)?.size).toEqual({ percent: 2, absolute: 0.5 });
    expect(floorOf("completionMs", m)?.size).toEqual({ percent: 2, absolute: 1 });
    expect(floorOf("peakHeapBytes", m)?.size).toEqual({ percent: 2, absolute: 3 * MIB });
    expect(floorOf("peakRssBytes", m)?.size).toEqual({ percent: 2, absolute: 2 * MIB });
    expect(floorOf("retainedHeapBytes", m)?.size).toEqual({ percent: 10, absolute: 2 * MIB });
    expect(floorOf("leakSlopeBytes", m)).toBeNull();
    // Nothing given: each metric's own.
    expect(floorOf("retainedHeapBytes", parseMinEffect(undefined))?.size).toEqual({ percent: 1, absolute: 64 * 1024 });
  });

  it("refuses a metric without a floor, an unknown one, or a size in another unit, naming what it takes", () => {
    expect(() => parseMinEffect("probeMs=1MiB")).toThrow(/probeMs is in ms: give it % or ms\)/);
    expect(() => parseMinEffect("peakHeapBytes=5ms")).toThrow(/peakHeapBytes is in bytes: give it % or B, KiB, MiB\)/);
    expect(() => parseMinEffect("leakSlopeBytes=1KiB")).toThrow(
      /metrics with a floor: completionMs, .*stormProbeMaxMs\)/,
    );
    expect(() => parseMinEffect("latency=1ms")).toThrow(/^--min-effect must be a comma-separated list of sizes/);
  });

  it("re-judges a run recorded with the one floor of before (1%, 1 MiB, 1 ms) by each metric's own; keeps any other", () => {
    expect(minEffectFromConfig({ minEffect: { percent: 1, bytes: MIB, ms: 1 } })).toEqual({});
    expect(minEffectFromConfig({ minEffect: { percent: 2, bytes: MIB, ms: 1 } })).toEqual({
      percent: 2,
      bytes: MIB,
      ms: 1,
    });
    expect(minEffectFromConfig({ minEffect: { metrics: { probeMs: { absolute: 0.5 } } } })).toEqual({
      metrics: { probeMs: { absolute: 0.5 } },
    });
  });
});
