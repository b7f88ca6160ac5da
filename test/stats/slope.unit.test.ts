// The Theil–Sen slope and Sen's interval: exact on a line, robust to an outlier, and a 95% interval
// that contains the true slope in about 95% of simulated leak series.
import { describe, expect, it } from "vitest";
import { randomFloats } from "../../common/prng.js";
import { theilSen } from "../../scripts/verdicts/slope.js";

/** A standard normal draw from two uniforms (Box–Muller). */
function normal(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

describe("theilSen", () => {
  it("finds the slope of an exact line, with a zero-width interval", () => {
    const x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    const r = theilSen(
      x,
      x.map((v) => 1000 + 64 * v),
    );
    expect(r).toEqual({ slope: 64, ciLow: 64, ciHigh: 64, n: 12 });
  });

  it("is not moved by one huge outlier (a GC that did not finish)", () => {
    const x = Array.from({ length: 20 }, (_, i) => i);
    const y = x.map((v) => 5_000_000 + 10 * v);
    y[7] = 50_000_000;
    const r = theilSen(x, y);
    expect(r.slope).toBe(10);
    expect(r.ciLow).toBeLessThanOrEqual(10);
    expect(r.ciHigh).toBeGreaterThanOrEqual(10);
  });

  it("gives an interval that straddles zero for pure noise and excludes it for a clear trend", () => {
    const next = randomFloats(7);
    const x = Array.from({ length: 30 }, (_, i) => i);
    const flat = theilSen(
      x,
      x.map(() => 1e6 + 4096 * normal(next)),
    );
    expect(flat.ciLow).toBeLessThan(0);
    expect(flat.ciHigh).toBeGreaterThan(0);
    const leaking = theilSen(
      x,
      x.map((v) => 1e6 + 8192 * v + 4096 * normal(next)),
    );
    expect(leaking.ciLow).toBeGreaterThan(0);
  });

  it("covers the true slope in 95% +- 2% of 2,000 simulated series (30 cycles, normal noise)", () => {
    const next = randomFloats(20261130);
    const x = Array.from({ length: 30 }, (_, i) => i);
    const trueSlope = 2048;
    let covered = 0;
    const runs = 2000;
    for (let r = 0; r < runs; r++) {
      const fit = theilSen(
        x,
        x.map((v) => 3e7 + trueSlope * v + 20_000 * normal(next)),
      );
      if (fit.ciLow <= trueSlope && trueSlope <= fit.ciHigh) covered++;
    }
    expect(covered / runs).toBeGreaterThanOrEqual(0.93);
    expect(covered / runs).toBeLessThanOrEqual(0.97);
  });

  it("refuses what has no slope", () => {
    expect(() => theilSen([1], [2])).toThrow(/at least two points/);
    expect(() => theilSen([1, 2], [2])).toThrow(/differ in length/);
    expect(() => theilSen([1, 2, 3], [1, 2, 3], 0.8)).toThrow(/0.9, 0.95 or 0.99/);
  });
});
