// Three outcomes per cell (DIFFERENT, SAME, UNKNOWN) from decideCell: the interval against 1.0, the
// practical floor and the A/A band; UNKNOWN carries the smallest change the cell could have seen and
// is the only outcome that leaves `undecided` true in an unguarded cell.
import { describe, expect, it } from "vitest";
import { DEFAULT_MIN_EFFECT } from "../../scripts/results/metric-floor.js";
import { OUTCOMES } from "../../scripts/results/outcome.js";
import { decideCell } from "../../scripts/verdicts/cells.js";

const base = {
  metric: "completionMs" as const,
  cell: "resume-many",
  plannedPairs: 8,
  baselineMedian: 200,
  floor: DEFAULT_MIN_EFFECT,
  band: { low: 0.98, high: 1.02 },
};
const summary = (median: number, low: number, high: number) => ({ n: 8, median, ci: { low, high }, iqr: 0.01 });

describe("three outcomes per cell", () => {
  it("lists exactly DIFFERENT, SAME, UNKNOWN", () => {
    expect(OUTCOMES).toEqual(["DIFFERENT", "SAME", "UNKNOWN"]);
  });

  it("DIFFERENT: the interval excludes 1 and the change reaches the floor and leaves the A/A band", () => {
    const v = decideCell({ ...base, summary: summary(1.08, 1.05, 1.11) }, null);
    expect(v).toMatchObject({ verdict: "higher", outcome: "DIFFERENT", undecided: false });
  });

  it("SAME: the interval lies inside the practical floor", () => {
    const v = decideCell({ ...base, band: null, summary: summary(1.002, 0.996, 1.004) }, null);
    expect(v).toMatchObject({ verdict: "no-practical-change", outcome: "SAME", undecided: false });
  });

  it("UNKNOWN, not SAME: an interval inside a wide A/A band but not the floor; the reason gives both", () => {
    const v = decideCell({ ...base, band: { low: 0.92, high: 1.087 }, summary: summary(0.948, 0.935, 0.991) }, null);
    expect(v).toMatchObject({ verdict: "noise", outcome: "UNKNOWN", undecided: true });
    expect(v.reason).toContain("interval 0.935–0.991 inside the A/A band 0.920–1.087");
  });

  it("UNKNOWN: an interval spanning 1.0 beyond the floor is undecided and says what it could have seen", () => {
    const v = decideCell({ ...base, summary: summary(1.01, 0.9, 1.12) }, null);
    expect(v).toMatchObject({ verdict: "noise", outcome: "UNKNOWN", undecided: true });
    expect(v.detectable).toBeGreaterThan(1.1);
  });

  it("UNKNOWN: a median below the floor whose interval reaches beyond it is not ranked", () => {
    const v = decideCell({ ...base, band: null, summary: summary(1.004, 1.001, 1.09) }, null);
    expect(v).toMatchObject({ outcome: "UNKNOWN", undecided: true });
    expect(v.verdict).toBe("noise");
  });

  it("judges on the sequential rule's wider interval when one is given", () => {
    const v = decideCell(
      { ...base, summary: summary(1.06, 1.03, 1.09), decision: { level: 0.9833, low: 0.995, high: 1.12 } },
      null,
    );
    expect(v).toMatchObject({ verdict: "noise", outcome: "UNKNOWN", undecided: true });
    expect(v.decision).toEqual({ level: 0.9833, low: 0.995, high: 1.12 });
  });

  it("a guarded cell keeps its guard verdict and gets an outcome too", () => {
    const v = decideCell(
      { ...base, summary: summary(1.08, 1.05, 1.11) },
      { ceiling: 1.03, metrics: ["completionMs"], minPairs: 8 },
    );
    expect(v).toMatchObject({ verdict: "fail", outcome: "DIFFERENT", undecided: false });
  });
});
