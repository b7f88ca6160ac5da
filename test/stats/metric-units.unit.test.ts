// Every figure the harness judges is judged and worded in its own unit (ms or bytes) and no other:
// the practical floor's absolute part, the change's size in the reason, and the unit the verdict
// records. The expected unit comes from the metric's name here, not from the code under test, so a
// metric filed under the wrong unit (probeMaxMs under bytes, because it is measured in memory cells)
// fails.
import { describe, expect, it } from "vitest";
import {
  JUDGED_METRICS,
  LEAK_METRIC,
  METRICS,
  STORM_METRIC_NAMES,
  STORM_METRICS,
  unitOf,
} from "../../scripts/results/metric-names.js";
import type { StormRow } from "../../scripts/results/storm-record.js";
import { summariseRatios } from "../../scripts/util/stats.js";
import { decideCell } from "../../scripts/verdicts/cells.js";
import { judgeLeak } from "../../scripts/verdicts/leak-guard.js";
import { leakRow } from "../../scripts/verdicts/leak-verdict.js";
import { DEFAULT_MIN_EFFECT } from "../../scripts/verdicts/practical.js";
import { stormVerdicts } from "../../scripts/verdicts/storm-verdict.js";

/** The unit a metric's name declares: "...Ms" and "...MsP99" are ms, "...Bytes" bytes. */
function unitByName(metric: string): "ms" | "bytes" {
  if (/Ms(P\d+)?$/.test(metric)) return "ms";
  if (/Bytes$/.test(metric)) return "bytes";
  throw new Error(`no unit in the name ${metric}`);
}

const KIB = 1024;

/**
 * Per unit, cases whose verdict differs when judged in the other unit: a baseline median in the
 * metric's unit, paired ratios around a factor, and the verdict and reason that unit gives.
 */
const CASES = {
  ms: [
    // 6.3 -> 12.6 ms: 6.3 ms is far above a 1 ms floor (in bytes, 6.3 B would be below 1 MiB).
    { baseline: 6.3, factor: 2, verdict: "higher", reason: /^interval above 1\.0$/ },
    // 1.5% of 50 ms is 0.75 ms: below the absolute floor of 1 ms only.
    {
      baseline: 50,
      factor: 1.015,
      verdict: "no-practical-change",
      reason: /^\+1\.5% \(0\.\d ms, under the 1 ms floor\)$/,
    },
  ],
  bytes: [
    // 100 KiB -> 150 KiB: 50 KiB is below 1 MiB (in ms, 51,200 ms would be far above 1 ms).
    {
      baseline: 100 * KIB,
      factor: 1.5,
      verdict: "no-practical-change",
      reason: /^\+50\.0% \(0\.05 MiB, under the 1 MiB floor\)$/,
    },
    // 0.5% of 400 MiB is 2 MiB: below the relative floor of 1% only.
    {
      baseline: 400 * KIB * KIB,
      factor: 1.005,
      verdict: "no-practical-change",
      reason: /^\+0\.5% \(2\.00 MiB, under the 1% floor\)$/,
    },
  ],
} as const;

/** Eight paired ratios tightly around `factor` (interval well inside any floor the case tests). */
function ratiosAround(factor: number): number[] {
  return [-4, -3, -2, -1, 1, 2, 3, 4].map((k) => factor * (1 + k * 0.0002));
}

describe("every judged metric in its own unit", () => {
  const judged = [...METRICS, ...STORM_METRIC_NAMES];

  it("declares one unit per judged figure, the one its name says", () => {
    expect([...JUDGED_METRICS].sort()).toEqual([...judged, LEAK_METRIC].sort());
    for (const m of judged) expect([m, unitOf(m)]).toEqual([m, unitByName(m)]);
    expect(unitOf(LEAK_METRIC)).toBe("bytes/cycle");
  });

  for (const metric of judged) {
    const unit = unitByName(metric);
    for (const c of CASES[unit]) {
      it(`${metric}: ${c.baseline} ${unit} × ${c.factor} is ${c.verdict}`, () => {
        const v = decideCell(
          {
            metric,
            cell: "cell",
            summary: summariseRatios(ratiosAround(c.factor), { resamples: 500, seed: 1 }),
            plannedPairs: 8,
            band: { low: 0.999, high: 1.001 },
            baselineMedian: c.baseline,
            floor: DEFAULT_MIN_EFFECT,
          },
          null,
        );
        expect(v.unit).toBe(unit);
        expect(v.verdict).toBe(c.verdict);
        expect(v.reason).toMatch(c.reason);
      });
    }
  }

  it("judges storm figures through the storm pairing with the run's floor, in their own units", () => {
    // Candidate b: ms figures 1.5% above 50 ms (0.75 ms: below 1 ms), byte figures 50% above 100 KiB
    // (50 KiB: below 1 MiB); a little jitter per trial gives the interval a width.
    const row = (variant: string, trial: number, candidate: boolean): StormRow => {
      const jitter = 1 + (trial % 3) * 0.0002;
      const value = (field: string) =>
        field.includes("Ms") ? 50 * (candidate ? 1.015 * jitter : 1) : 100 * KIB * (candidate ? 1.5 * jitter : 1);
      const figures = Object.fromEntries(Object.values(STORM_METRICS).map((f) => [f, value(f)]));
      const base = {
        variant,
        trial,
        scriptBytes: 1024,
        clients: 500,
        rampMs: 0,
        resumeRatio: 1,
        ok: 500,
        failures: {},
      };
      return { ...base, ...figures } as unknown as StormRow;
    };
    const rows: StormRow[] = [];
    for (let t = 1; t <= 8; t++) rows.push(row("a", t, false), row("b", t, true));
    const verdicts = stormVerdicts(
      rows,
      { baseline: "a", candidate: "b" },
      {
        metrics: STORM_METRIC_NAMES,
        guard: null,
        planned: 8,
        aa: null,
        floor: DEFAULT_MIN_EFFECT,
      },
    );
    for (const v of verdicts) {
      const unit = unitByName(v.metric);
      expect([v.metric, v.unit, v.verdict]).toEqual([v.metric, unit, "no-practical-change"]);
      expect(v.reason).toContain(unit === "ms" ? "under the 1 ms floor" : "under the 1 MiB floor");
    }
  });

  it("words the leak slope per cycle, never as a latency or a ratio", () => {
    const points = Array.from({ length: 15 }, (_, i) => ({
      cycle: i + 1,
      postGcHeapBytes: 50e6 + i * 4096,
      rssBytes: 100e6,
      fds: 20,
    }));
    const rows = [leakRow("a", 1, points, 2, 1024), leakRow("b", 1, points, 2, 1024)];
    const [line] = judgeLeak(rows, "a", "b").lines;
    expect(line).toMatch(/heap slope 4\.0 KiB\/cycle \(95% CI [\d.]+ KiB to [\d.]+ KiB, 13 cycles\)/);
    expect(line).toContain("threshold 1.0 KiB/cycle");
    expect(line).not.toMatch(/ ms\b|MiB/);
  });
});
