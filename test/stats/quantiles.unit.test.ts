// Median, quantile (Hyndman & Fan type 7, as R's default) and IQR on hand-checked values.
import { describe, expect, it } from "vitest";
import { iqr, median, quantile, stdev } from "../../scripts/util/stats.js";

describe("quantile type 7", () => {
  it("matches R's quantile() default on 1..10", () => {
    const xs = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5]; // unsorted on purpose
    // R: quantile(1:10, c(0, .1, .25, .5, .9, 1)) -> 1.00 1.90 3.25 5.50 9.10 10.00
    expect(quantile(xs, 0)).toBe(1);
    expect(quantile(xs, 0.1)).toBeCloseTo(1.9, 12);
    expect(quantile(xs, 0.25)).toBeCloseTo(3.25, 12);
    expect(quantile(xs, 0.5)).toBeCloseTo(5.5, 12);
    expect(quantile(xs, 0.9)).toBeCloseTo(9.1, 12);
    expect(quantile(xs, 1)).toBe(10);
  });

  it("does not reorder its input", () => {
    const xs = [3, 1, 2];
    quantile(xs, 0.5);
    expect(xs).toEqual([3, 1, 2]);
  });

  it("rejects an empty sample and p outside [0, 1]", () => {
    expect(() => quantile([], 0.5)).toThrow(/empty/);
    expect(() => quantile([1], 1.5)).toThrow(/\[0, 1\]/);
    expect(() => quantile([1], Number.NaN)).toThrow(/\[0, 1\]/);
  });
});

describe("median", () => {
  it("takes the middle value of an odd count and the mean of the two middle values of an even count", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
});

describe("iqr", () => {
  it("is Q3 - Q1 with type 7 quantiles", () => {
    // R: IQR(c(1, 2, 3, 4, 10)) -> 2 (Q1 = 2, Q3 = 4)
    expect(iqr([1, 2, 3, 4, 10])).toBe(2);
    expect(iqr([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBeCloseTo(4.5, 12);
    expect(iqr([42])).toBe(0);
  });
});

describe("stdev", () => {
  it("uses the n - 1 denominator", () => {
    expect(stdev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(stdev([1])).toBe(0);
  });
});
