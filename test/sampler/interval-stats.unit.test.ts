// The cadence figures reported beside every memory cell.
import { describe, expect, it } from "vitest";
import { distribution, intervalStats, intervalsOf } from "../../scripts/sampler/interval-stats.js";

describe("intervalStats", () => {
  it("reports median, p99 and max of the gaps between consecutive times", () => {
    // 99 gaps of 10 ms and one of 60 ms: median 10, max 60, p99 interpolates between 10 and 60.
    const times = Array.from({ length: 100 }, (_, i) => i * 10);
    times.push(1050);
    const s = intervalStats(times);
    expect(s?.median).toBe(10);
    expect(s?.max).toBe(60);
    // Type 7: h = (100 - 1) × 0.99 = 98.01, so 1 % of the way from the 99th gap (10) to the 100th (60).
    expect(s?.p99).toBeCloseTo(10.5, 10);
  });
  it("is null with fewer than two times", () => {
    expect(intervalStats([])).toBeNull();
    expect(intervalStats([5])).toBeNull();
  });
  it("handles long runs without spreading arguments", () => {
    const d = distribution(Array.from({ length: 400_000 }, (_, i) => i % 7));
    expect(d).toEqual({ median: 3, p99: 6, max: 6 });
  });
  it("intervalsOf keeps order and sign", () => {
    expect(intervalsOf([0, 10, 15, 14])).toEqual([10, 5, -1]);
  });
});
