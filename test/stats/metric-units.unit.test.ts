// Every figure the harness judges is judged and worded in its own unit (ms or bytes) and no other:
// the practical floor's absolute part, the change's size in the reason, and the unit the verdict
// records. The expected unit comes from the metric's name here, not from the code under test, so a
// metric filed under the wrong unit (probeMaxMs under bytes, because it is measured in memory cells)
// fails. The floor's sizes are the metric's own (its rule in the metric table); each case is built
// from them so that only one part of the floor decides.
import { describe, expect, it } from "vitest";
import { DEFAULT_MIN_EFFECT } from "../../scripts/results/metric-floor.js";
import {
  floorOf,
  JUDGED_METRICS,
  type JudgedMetric,
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
import { stormVerdicts } from "../../scripts/verdicts/storm-verdict.js";

/** The unit a metric's name declares: "...Ms" and "...MsP99" are ms, "...Bytes" bytes. */
function unitByName(metric: string): "ms" | "bytes" {
  if (/Ms(P\d+)?$/.test(metric)) return "ms";
  if (/Bytes$/.test(metric)) return "bytes";
  throw new Error(`no unit in the name ${metric}`);
}

/** A size as a reason states it in a unit: "0.75 ms", "0.05 MiB", "32.0 KiB". */
const SIZE = { ms: String.raw`[\d.]+ ms`, bytes: String.raw`[\d.]+ (KiB|MiB)` };

/** The metric's own floor: relative part p (a fraction) and absolute part a (in its unit). */
function floorParts(metric: JudgedMetric): { p: number; a: number } {
  const floor = floorOf(metric, DEFAULT_MIN_EFFECT);
  if (!floor) throw new Error(`${metric} has no floor`);
  return { p: floor.size.percent / 100, a: floor.size.absolute };
}

/**
 * Per metric, cases whose verdict differs when judged in the other unit or by the other part: a
 * baseline median in the metric's unit, paired ratios around a factor, and the verdict and reason.
 */
function casesOf(metric: JudgedMetric) {
  const { p, a } = floorParts(metric);
  const size = SIZE[unitByName(metric)];
  return [
    // Twice a baseline 100 times the absolute part: far above both parts.
    { baseline: 100 * a, factor: 2, verdict: "higher", reason: /^interval above 1\.0$/ },
    // Twice the relative part, on a baseline where that is half the absolute part: under it alone.
    {
      baseline: a / (4 * p),
      factor: 1 + 2 * p,
      verdict: "no-practical-change",
      reason: new RegExp(String.raw`^\+[\d.]+% \(${size}, under the ${size} floor\)$`),
    },
    // Half the relative part, on a baseline where that is twice the absolute part: under it alone.
    {
      baseline: (4 * a) / p,
      factor: 1 + p / 2,
      verdict: "no-practical-change",
      reason: new RegExp(String.raw`^\+[\d.]+% \(${size}, under the [\d.]+% floor\)$`),
    },
    // A baseline under the absolute part: no lower figure could leave the floor, so it is not judged.
    {
      baseline: a / 2,
      factor: 0.8,
      verdict: "not-judged",
      reason: new RegExp(String.raw`^floor above the baseline \(the ${size} floor, a baseline median of ${size}\)$`),
    },
  ];
}

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
    for (const c of casesOf(metric)) {
      it(`${metric}: ${+c.baseline.toPrecision(4)} ${unit} × ${+c.factor.toFixed(4)} is ${c.verdict}`, () => {
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
        expect([v.verdict, v.reason]).toEqual([c.verdict, expect.stringMatching(c.reason)]);
      });
    }
  }

  it("judges storm figures through the storm pairing with the run's floor, in their own units", () => {
    // Candidate b: each figure twice its floor's relative part above a baseline where that is half
    // the absolute part (under it alone); a little jitter per trial gives the interval a width.
    const row = (variant: string, trial: number, candidate: boolean): StormRow => {
      const jitter = 1 + (trial % 3) * 0.0002;
      const figures = Object.fromEntries(
        STORM_METRIC_NAMES.map((m) => {
          const { p, a } = floorParts(m);
          return [STORM_METRICS[m], (a / (4 * p)) * (candidate ? (1 + 2 * p) * jitter : 1)];
        }),
      );
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
      expect(v.reason).toMatch(new RegExp(String.raw`under the ${SIZE[unit]} floor\)$`));
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
