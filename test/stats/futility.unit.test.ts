// The sequential rule's futility stop: at a look, an UNKNOWN metric whose answer is out of reach by the
// cap (SAME impossible at the cap's projected width, DIFFERENT under a 10% chance at today's median)
// ends its cell's rounds; one that may yet be answered does not, nor does a decided or guarded one.
import { describe, expect, it } from "vitest";
import { DEFAULT_MIN_EFFECT } from "../../scripts/results/metric-floor.js";
import { decideCell } from "../../scripts/verdicts/cells.js";
import { chanceByCap, FUTILITY_CHANCE, LOOK_LEVEL, sequentialNeed } from "../../scripts/verdicts/sequential.js";

/** A latency cell judged at `pairs` on a look interval [low, high] about `median` (1% floor at 200 ms). */
function judged(median: number, low: number, high: number, pairs = 8) {
  return decideCell(
    {
      metric: "completionMs",
      cell: "resume-many",
      plannedPairs: pairs,
      baselineMedian: 200,
      floor: DEFAULT_MIN_EFFECT,
      band: { low: 0.97, high: 1.03 },
      summary: { n: pairs, median, ci: { low, high }, iqr: 0.01 },
      decision: { level: LOOK_LEVEL, low, high },
    },
    null,
  );
}
const ONE_PERCENT = 0.01;

describe("the futility stop", () => {
  it("calls an unchanged noisy cell out of reach: the cap's interval would neither fit the floor nor clear 1.0", () => {
    const v = judged(1.004, 0.95, 1.06);
    expect(v.outcome).toBe("UNKNOWN");
    expect(chanceByCap(v, ONE_PERCENT)).toBeLessThan(FUTILITY_CHANCE);
    expect(sequentialNeed([v], () => ONE_PERCENT)).toBe("futile");
  });

  it("keeps a cell whose median may yet clear 1.0 by the cap", () => {
    const v = judged(1.045, 0.99, 1.1);
    expect(v.outcome).toBe("UNKNOWN");
    expect(chanceByCap(v, ONE_PERCENT)).toBeGreaterThan(0.5);
    expect(sequentialNeed([v], () => ONE_PERCENT)).toBe("more");
  });

  it("keeps a cell whose interval may yet fit inside the floor (SAME within reach)", () => {
    const v = judged(1.0, 0.986, 1.014);
    expect(v.outcome).toBe("UNKNOWN");
    expect(chanceByCap(v, ONE_PERCENT)).toBe(1);
    // A wider floor makes SAME reachable where the 1% floor does not.
    const wide = judged(1.004, 0.95, 1.06);
    expect(chanceByCap(wide, 0.05)).toBe(1);
  });

  it("grows stricter as pairs grow: the same interval is futile at 12 where the look at 8 kept it", () => {
    expect(chanceByCap(judged(1.028, 0.985, 1.08, 8), ONE_PERCENT)).toBeGreaterThan(FUTILITY_CHANCE);
    expect(chanceByCap(judged(1.028, 0.985, 1.08, 12), ONE_PERCENT)).toBeLessThan(FUTILITY_CHANCE);
  });

  it("stops only at a look, and only when every open metric is out of reach", () => {
    const hopeless = judged(1.004, 0.95, 1.06);
    const hopeful = judged(1.045, 0.99, 1.1);
    const different = judged(1.2, 1.1, 1.3);
    expect(different.outcome).toBe("DIFFERENT");
    expect(sequentialNeed([hopeless, different], () => ONE_PERCENT)).toBe("futile");
    expect(sequentialNeed([hopeless, hopeful], () => ONE_PERCENT)).toBe("more");
    expect(sequentialNeed([judged(1.004, 0.95, 1.06, 9)], () => ONE_PERCENT)).toBe("more");
    expect(chanceByCap(different, ONE_PERCENT)).toBe(1);
    expect(chanceByCap({ ...hopeless, guarded: true }, ONE_PERCENT)).toBe(1);
  });
});
