// Paired ratios pair trial i with trial i and skip pairs that cannot form a meaningful ratio.
import { describe, expect, it } from "vitest";
import { pairedRatios, summariseRatios } from "../../scripts/util/stats.js";

describe("pairedRatios", () => {
  it("divides candidate by baseline index by index", () => {
    expect(pairedRatios([100, 200, 400], [50, 300, 400])).toEqual([0.5, 1.5, 1]);
  });

  it("skips missing, non-finite and non-positive figures on either side", () => {
    expect(pairedRatios([100, null, 0, 10, Number.NaN, -5, 20], [50, 10, 10, undefined, 3, 5, 40])).toEqual([0.5, 2]);
  });

  it("uses only as many pairs as the shorter side has", () => {
    expect(pairedRatios([1, 2, 4], [2, 2])).toEqual([2, 1]);
  });
});

describe("summariseRatios", () => {
  it("reports the median, IQR, count and an interval around the median", () => {
    const ratios = [0.9, 0.95, 1, 1.05, 1.1, 0.92, 0.98, 1.02, 1.08, 0.97, 1.01, 1.03];
    const s = summariseRatios(ratios, { seed: 7 });
    expect(s).not.toBeNull();
    expect(s?.n).toBe(12);
    expect(s?.median).toBeCloseTo(1.005, 12);
    expect(s?.ci.low).toBeLessThan(1.005);
    expect(s?.ci.high).toBeGreaterThan(1.005);
    expect(s?.ci.low).toBeGreaterThan(0.9);
    expect(s?.ci.high).toBeLessThan(1.1);
  });

  it("is null without pairs", () => {
    expect(summariseRatios([])).toBeNull();
  });
});
