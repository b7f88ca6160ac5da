// The seeded PRNG and bootstrap are reproducible: same seed, same numbers; a report re-renders byte for byte.
import { describe, expect, it } from "vitest";
import { randomFloats } from "../../common/prng.js";
import { bootstrapMedianCI, bootstrapRatioCI, seedFromString } from "../../scripts/util/stats.js";

describe("randomFloats (mulberry32)", () => {
  it("gives the same stream for the same seed and a different one for another seed", () => {
    const a = randomFloats(123);
    const b = randomFloats(123);
    const c = randomFloats(124);
    const xa = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(xa);
    expect(Array.from({ length: 5 }, c)).not.toEqual(xa);
    for (const x of xa) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });

  it("is roughly uniform", () => {
    const r = randomFloats(9);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) sum += r();
    expect(sum / 10_000).toBeGreaterThan(0.48);
    expect(sum / 10_000).toBeLessThan(0.52);
  });
});

describe("bootstrapMedianCI", () => {
  const xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];

  it("is reproducible for a seed and changes with the seed", () => {
    expect(bootstrapMedianCI(xs, { seed: 5 })).toEqual(bootstrapMedianCI(xs, { seed: 5 }));
    expect(bootstrapMedianCI(xs, { seed: 5 })).not.toEqual(bootstrapMedianCI(xs, { seed: 6 }));
  });

  it("collapses to the value for a single observation or identical observations", () => {
    expect(bootstrapMedianCI([2.5])).toEqual({ low: 2.5, high: 2.5 });
    expect(bootstrapMedianCI([4, 4, 4, 4])).toEqual({ low: 4, high: 4 });
  });

  it("without smoothing stays within the sample's range", () => {
    const ci = bootstrapMedianCI(xs, { smooth: false, seed: 3 });
    expect(ci.low).toBeGreaterThanOrEqual(1);
    expect(ci.high).toBeLessThanOrEqual(9);
    expect(ci.low).toBeLessThanOrEqual(ci.high);
  });
});

describe("bootstrapRatioCI", () => {
  it("gives positive bounds around the median ratio, even for widely spread ratios", () => {
    const rs = [0.05, 0.8, 0.9, 1.1, 1.3, 0.95, 1.05, 1.2, 20];
    const ci = bootstrapRatioCI(rs, { seed: 11 });
    expect(ci.low).toBeGreaterThan(0);
    expect(ci.low).toBeLessThanOrEqual(1.05);
    expect(ci.high).toBeGreaterThanOrEqual(1.05);
  });
});

describe("seedFromString", () => {
  it("is stable and distinguishes names", () => {
    expect(seedFromString("completionMs")).toBe(seedFromString("completionMs"));
    expect(seedFromString("completionMs")).not.toBe(seedFromString("peakHeapBytes"));
  });
});
