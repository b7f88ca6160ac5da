// Slow creep (asv's complaint: 1.00 → 1.04 → 1.08, no step over a 5% threshold): 0.2% a commit for 40
// commits. Judged commit against parent, paired, every step is below the practical floor; judged
// HEAD against REF, paired (`history regressions --since REF`), the 8% is a regression.
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../common/prng.js";
import { DEFAULT_MIN_EFFECT } from "../../scripts/results/metric-floor.js";
import { summariseRatios } from "../../scripts/util/stats.js";
import { decideCell } from "../../scripts/verdicts/cells.js";
import { regressionsOf } from "../../scripts/verdicts/since-verdict.js";

/** The verdict of 8 paired trials whose true ratio is `ratio`, each with 1% noise. */
function pairedVerdict(ratio: number, seed: number) {
  const r = mulberry32(seed);
  const ratios = Array.from({ length: 8 }, () => ratio * (1 + (r.next() - 0.5) * 0.02));
  return decideCell(
    {
      metric: "completionMs",
      cell: "resume-many",
      summary: summariseRatios(ratios, { resamples: 2000, seed }),
      plannedPairs: 8,
      band: null,
      baselineMedian: 500,
      floor: DEFAULT_MIN_EFFECT,
    },
    null,
  );
}

describe("slow creep", () => {
  const level = (i: number) => 1 + 0.002 * i;

  it("shows in no single step: every commit against its parent is below the floor", () => {
    for (let i = 1; i <= 40; i++) {
      const step = level(i) / level(i - 1);
      expect(regressionsOf([pairedVerdict(step, i)]), `commit ${i}`).toEqual([]);
    }
  });

  it("is a regression of HEAD against REF, paired", () => {
    const found = regressionsOf([pairedVerdict(level(40) / level(0), 99)]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ cell: "resume-many", metric: "completionMs", pairs: 8 });
    expect(found[0]?.ratio).toBeCloseTo(1.08, 1);
    expect(found[0]?.low).toBeGreaterThan(1.05);
  });
});
