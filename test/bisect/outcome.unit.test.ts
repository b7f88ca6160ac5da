// The three outcomes of a cell (pair-outcome.ts): an outcome a verdict carries is taken; one from
// before outcomes is read from its interval and the floor; a cell its floor does not judge decides
// nothing; a comparison's outcome over its cells; the pairs of the next try.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cellOutcomes, combinedOutcome, nextPairs, outcomeOf } from "../../scripts/verdicts/pair-outcome.js";
import { syntheticResults } from "../report/synthetic-run.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-outcome-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const verdict = (over: Partial<Parameters<typeof outcomeOf>[0]>) => ({
  verdict: "higher" as const,
  median: 1.5,
  ciLow: 1.3,
  ciHigh: 1.7,
  aaLow: null,
  aaHigh: null,
  ...over,
});

describe("outcomeOf", () => {
  it("takes the outcome a record carries", () => {
    expect(outcomeOf(verdict({ outcome: "SAME" }))).toBe("SAME");
  });

  it("DIFFERENT: the interval excludes 1 and the change reaches the floor", () => {
    expect(outcomeOf(verdict({}))).toBe("DIFFERENT");
    expect(outcomeOf(verdict({ verdict: "lower", median: 0.5, ciLow: 0.4, ciHigh: 0.6 }), 0.1)).toBe("DIFFERENT");
  });

  it("UNKNOWN: the interval excludes 1 but the change is short of the floor", () => {
    expect(outcomeOf(verdict({ median: 1.05, ciLow: 1.01, ciHigh: 1.3 }), 0.1)).toBe("UNKNOWN");
  });

  it("SAME: the whole interval inside the floor (or a no-practical-change verdict)", () => {
    expect(outcomeOf(verdict({ verdict: "noise", median: 1.01, ciLow: 0.95, ciHigh: 1.08 }), 0.1)).toBe("SAME");
    expect(outcomeOf(verdict({ verdict: "no-practical-change", median: 1.001, ciLow: 0.999, ciHigh: 1.003 }))).toBe(
      "SAME",
    );
  });

  it("UNKNOWN: the interval spans 1 beyond the floor, inside the A/A band, missing or too few pairs", () => {
    expect(outcomeOf(verdict({ verdict: "noise", median: 1.1, ciLow: 0.8, ciHigh: 1.4 }), 0.1)).toBe("UNKNOWN");
    expect(outcomeOf(verdict({ aaLow: 0.6, aaHigh: 1.6 }))).toBe("UNKNOWN");
    expect(outcomeOf(verdict({ verdict: "missing", median: null, ciLow: null, ciHigh: null }))).toBe("UNKNOWN");
    expect(outcomeOf(verdict({ verdict: "too-few-pairs" }))).toBe("UNKNOWN");
  });

  it("without a floor width, a noise verdict whose interval excludes 1 is not DIFFERENT", () => {
    expect(outcomeOf(verdict({ verdict: "noise" }))).toBe("UNKNOWN");
  });
});

describe("cellOutcomes", () => {
  it("leaves out the cells whose floor reaches their baseline: a floor set above a figure takes it out of the decision", () => {
    const r = syntheticResults(dir, { candidateFactor: 1 });
    const metrics = (config: Record<string, unknown>) => {
      r.run.config = { ...r.run.config, ...config };
      return new Set(cellOutcomes(r).map((c) => c.metric));
    };
    expect(metrics({}).has("completionMs")).toBe(true);
    // Every timer's floor at 10 s, far above the synthetic run's few hundred ms: no timer decides.
    const silenced = metrics({ minEffect: { ms: 10_000 } });
    expect([...silenced].filter((m) => m.endsWith("Ms"))).toEqual([]);
    expect(silenced.has("peakHeapBytes")).toBe(true);
  });
});

describe("combinedOutcome and nextPairs", () => {
  it("DIFFERENT when any cell differs, SAME when all are the same, else UNKNOWN", () => {
    expect(combinedOutcome(["SAME", "UNKNOWN", "DIFFERENT"])).toBe("DIFFERENT");
    expect(combinedOutcome(["SAME", "SAME"])).toBe("SAME");
    expect(combinedOutcome(["SAME", "UNKNOWN"])).toBe("UNKNOWN");
    expect(combinedOutcome([])).toBe("UNKNOWN");
  });

  it("doubles the pairs up to the cap (10 → 20 → 40 → 80 → 160, then stop)", () => {
    const tries = [10];
    for (let n = nextPairs(10, 160); n !== null; n = nextPairs(n, 160)) tries.push(n);
    expect(tries).toEqual([10, 20, 40, 80, 160]);
  });
});
