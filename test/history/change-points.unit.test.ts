// The change-point detector on synthetic series with known answers: a step is found at its commit,
// a single spike is not a change point, pure noise yields change points at a measured rate below the
// stated one, a point with a far wider interval is skipped, and the same seed gives the same answer.
import { describe, expect, it } from "vitest";
import { mulberry32, type Rng } from "../../common/prng.js";
import {
  alertsOf,
  type DetectOptions,
  detectSeries,
  type SeriesPoint,
  windowStarts,
} from "../../scripts/verdicts/change-point-verdict.js";
import { bestSplit } from "../../scripts/verdicts/edivisive.js";
import { changeFloor } from "../../scripts/verdicts/series-floor.js";

function gauss(r: Rng): number {
  const u = 1 - r.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.next());
}

/** n points of log ratio `level(i)` plus Gaussian noise of sd `sd`, each with an interval of ±2 sd. */
function series(seed: number, n: number, sd: number, level: (i: number) => number = () => 0): SeriesPoint[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const y = level(i) + sd * gauss(r);
    return {
      commit: `c${i}`,
      ratio: Math.exp(y),
      low: Math.exp(y - 2 * sd),
      high: Math.exp(y + 2 * sd),
      anchorEstimate: 100,
    };
  });
}

const options = (seed: number, percent = 2): DetectOptions => ({
  pValue: 0.01,
  window: 40,
  permutations: 199,
  seed,
  floor: { percent, absolute: 0 },
});

describe("E-divisive change points", () => {
  it("finds a 5% step at its commit and nowhere else (1% noise), in 48 of 50 seeded series at least", () => {
    let exact = 0;
    for (let s = 1; s <= 50; s++) {
      const d = detectSeries(
        series(s * 31, 30, 0.01, (i) => (i >= 17 ? Math.log(1.05) : 0)),
        options(s),
      );
      if (d.changes.length === 1 && d.changes[0]?.commit === "c17") exact++;
    }
    expect(exact).toBeGreaterThanOrEqual(48);
  });

  it("names the suspect and the last stable commit, and the levels either side", () => {
    const d = detectSeries(
      series(5, 24, 0.005, (i) => (i >= 10 ? Math.log(1.2) : 0)),
      options(1),
    );
    expect(d.changes).toHaveLength(1);
    const c = d.changes[0];
    expect(c).toMatchObject({ index: 10, commit: "c10", stableCommit: "c9" });
    expect(c?.after).toBeCloseTo(1.2, 1);
    expect(c?.before).toBeCloseTo(1, 1);
    expect(c?.magnitude).toBeCloseTo(Math.log(1.2), 1);
    expect(c?.pValue).toBeLessThanOrEqual(0.01);
  });

  it("finds two steps in a series longer than a window", () => {
    const level = (i: number) => (i >= 50 ? Math.log(1.1) : i >= 20 ? Math.log(0.9) : 0);
    const d = detectSeries(series(11, 70, 0.01, level), { ...options(3), window: 30 });
    expect(d.changes.map((c) => c.commit)).toEqual(["c20", "c50"]);
  });

  it("does not report a single spike (30% on one commit) as a change point", () => {
    for (let s = 1; s <= 30; s++) {
      const d = detectSeries(
        series(s * 13, 30, 0.01, (i) => (i === 12 ? Math.log(1.3) : 0)),
        options(s),
      );
      expect(d.changes, `seed ${s}`).toEqual([]);
    }
  });

  it("reports no change below the minimum magnitude, however significant", () => {
    const d = detectSeries(
      series(3, 30, 0.001, (i) => (i >= 15 ? Math.log(1.01) : 0)),
      options(3, 2),
    );
    expect(d.changes).toEqual([]);
    expect(
      detectSeries(
        series(3, 30, 0.001, (i) => (i >= 15 ? Math.log(1.01) : 0)),
        options(3, 0.5),
      ).changes,
    ).toHaveLength(1);
  });

  it("measures the false-alarm rate on pure noise: at most 1% of series at p 0.01 without a floor, none above the 2% floor", () => {
    // 300 seeded series of 30 points, 1% noise: the permutation test alone (no floor), and with the
    // default latency floor. Measured: 1 of 300 series (0.3%) without the floor; 0 of 300 with it.
    let statistical = 0;
    let withFloor = 0;
    for (let s = 1; s <= 300; s++) {
      const points = series(s * 7919, 30, 0.01);
      if (detectSeries(points, options(s, 0)).changes.length > 0) statistical++;
      if (detectSeries(points, options(s, 2)).changes.length > 0) withFloor++;
    }
    expect(statistical / 300).toBeLessThanOrEqual(0.01);
    expect(withFloor).toBe(0);
  });

  it("skips a point whose interval is far wider than the series' (and says so), so it makes no change", () => {
    const points = series(9, 30, 0.01);
    points[20] = { commit: "c20", ratio: 1.5, low: 0.5, high: 4.5, anchorEstimate: 100 };
    points[21] = { commit: "c21", ratio: 1.5, low: 0.5, high: 4.5, anchorEstimate: 100 };
    points[22] = { commit: "c22", ratio: 1.5, low: 0.5, high: 4.5, anchorEstimate: 100 };
    const d = detectSeries(points, options(9, 0));
    expect(d.skipped.map((s) => s.commit)).toEqual(["c20", "c21", "c22"]);
    expect(d.skipped[0]?.reason).toMatch(/interval [\d.]+× the series' median width/);
    expect(d.changes).toEqual([]);
  });

  it("gives the same answer for the same seed", () => {
    const points = series(21, 40, 0.02, (i) => (i >= 25 ? 0.06 : 0));
    expect(detectSeries(points, options(4))).toEqual(detectSeries(points, options(4)));
  });

  it("groups the series' changes at one commit into one alert", () => {
    const change = { stableCommit: "s", pValue: 0.005, before: 1, after: 1.1, index: 3 };
    const key = { branch: "main", testbedId: 1, anchor: "a", matrix: "latency" };
    const alerts = alertsOf([
      { ...key, ...change, cell: "snapshot", metric: "completionMs", commit: "x", magnitude: 0.09 },
      { ...key, ...change, cell: "resume-many", metric: "completionMs", commit: "x", magnitude: 0.1 },
      { ...key, ...change, cell: "snapshot", metric: "firstChunkMs", commit: "y", magnitude: -0.1 },
    ]);
    expect(alerts.map((a) => [a.commit, a.direction, a.changes.length])).toEqual([
      ["x", "regression", 2],
      ["y", "improvement", 1],
    ]);
  });

  it("splits at the step by the energy statistic, and not inside the minimum segment", () => {
    expect(bestSplit([0, 0, 0, 0, 1, 1, 1, 1], 3)?.at).toBe(4);
    expect(bestSplit([0, 0, 0, 0, 0], 3)).toBeNull();
    expect(windowStarts(10, 40)).toEqual([0]);
    expect(windowStarts(100, 40)).toEqual([0, 20, 40, 60]);
  });

  it("holds memory series to 1% and 2 MiB, latency to 2% and 1 ms", () => {
    expect(changeFloor("peakRssBytes")).toEqual({ unit: "bytes", percent: 1, absolute: 2 * 1024 * 1024 });
    expect(changeFloor("completionMs")).toEqual({ unit: "ms", percent: 2, absolute: 1 });
  });
});
