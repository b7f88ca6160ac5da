// Per-cell verdicts and the per-cell guard on synthetic runs: a regression confined to one case fails
// that case while the pooled ratio stays near 1.0; noise inside the A/A band is not ranked; missing
// pairs leave the run without a verdict (exit 3) unless --allow-missing; a single target is never
// judged; results.json's verdict entries have the documented shape.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { median, summariseRatios } from "../../scripts/util/stats.js";
import { decideCell, detectableChange, metricVerdicts, verdictsOf } from "../../scripts/verdicts/cells.js";
import { judge } from "../../scripts/verdicts/guard-verdict.js";
import { metricRatios, rolesOf } from "../../scripts/verdicts/metrics.js";
import { syntheticResults } from "./synthetic-run.js";

const dirs: string[] = [];
function results(options: Parameters<typeof syntheticResults>[1]) {
  const d = mkdtempSync(join(tmpdir(), "catchup-verdicts-"));
  dirs.push(d);
  return syntheticResults(d, options);
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const GUARD = { ceiling: 1.03, minPairs: 1, metrics: ["completionMs", "peakHeapBytes"] };

describe("the per-cell guard", () => {
  it("passes a faster, leaner candidate in every guarded cell (exit 0)", () => {
    const d = judge(results({ trials: 8, memoryTrials: 3 }), GUARD);
    expect(d.exitCode).toBe(EXIT.ok);
    expect(d.failed).toEqual([]);
    // 4 latency cells + 8 memory cells, one line each, then the summary
    expect(d.lines).toHaveLength(13);
    expect(d.lines[3]).toMatch(
      /^completionMs resume-many: median paired ratio 0\.\d{3} \(8 pairs, 95% CI .*\); median <= ceiling 1\.03: PASS$/,
    );
    expect(d.lines.at(-1)).toBe("guard: PASS (12 guarded cells, median <= 1.03 in each)");
  });

  it("fails the one case that regressed, naming it, while the pooled ratio stays near 1.0", () => {
    const r = results({ candidateFactor: 1, caseFactor: { "resume-many": 1.2 }, trials: 8, latencyNoise: 0.01 });
    const pooled = median(metricRatios("completionMs", r, rolesOf(r) as NonNullable<ReturnType<typeof rolesOf>>));
    expect(pooled).toBeGreaterThan(0.98);
    expect(pooled).toBeLessThan(1.03); // the old pooled guard would have passed this run
    const d = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] });
    expect(d.exitCode).toBe(EXIT.regression);
    expect(d.failed).toEqual(["completionMs resume-many"]);
    expect(d.lines.find((l) => l.startsWith("completionMs resume-many"))).toMatch(
      /median paired ratio 1\.\d{3} \(8 pairs, 95% CI [\d.–]+\); median > ceiling 1\.03: FAIL$/,
    );
    expect(d.lines.at(-1)).toBe("guard: FAIL (median above 1.03) in 1 cell: completionMs resume-many");
  });

  it("with --guard-confidence fails only when the interval's lower bound is above the ceiling", () => {
    // A 4% regression on 4% noise: the median is over 1.03, the interval's low end is not.
    const r = results({ candidateFactor: 1.04, trials: 3, seed: 3 });
    const byMedian = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] });
    const byBound = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"], confidence: true });
    expect(byMedian.failed.length).toBeGreaterThan(0);
    expect(byBound.failed.length).toBeLessThan(byMedian.failed.length);
    expect(byBound.lines[0]).toMatch(/interval low [\d.]+ (<=|>) ceiling 1\.03/);
  });

  it("leaves a cell with a missing pair without a verdict (exit 3) unless --allow-missing", () => {
    const r = results({ candidateFactor: 0.9, withFailure: true, trials: 8 });
    const d = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] });
    expect(d.exitCode).toBe(EXIT.noResult);
    expect(d.undecided).toEqual(["completionMs resume-one"]);
    expect(d.lines.find((l) => l.startsWith("completionMs resume-one"))).toMatch(/7 of 8 planned pairs ok: MISSING/);
    const allowed = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"], allowMissing: true });
    expect(allowed.exitCode).toBe(EXIT.ok);
  });

  it("counts a trial that never ran (an interrupted run) as missing too", () => {
    const r = results({ candidateFactor: 0.9, trials: 8 });
    r.latency = r.latency.filter((row) => !(row.case === "snapshot" && row.trial === 8));
    const v = verdictsOf(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] }).find(
      (x) => x.metric === "completionMs" && x.cell === "snapshot",
    );
    expect(v).toMatchObject({ pairs: 7, plannedPairs: 8, verdict: "missing" });
  });

  it("calls a cell above the ceiling but inside its A/A band noise, with no verdict (exit 3)", () => {
    // 5% over the baseline on a machine whose A/A copies differ by ~8%.
    const r = results({ candidateFactor: 1.05, aa: true, trials: 8, latencyNoise: 0.02 });
    for (const row of r.aa?.latency ?? []) if (row.completionMs !== null) row.completionMs *= 1.08;
    const d = judge(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] });
    expect(d.failed).toEqual([]);
    expect(d.exitCode).toBe(EXIT.noResult);
    expect(d.lines[0]).toMatch(
      /A\/A band 0\.9\d\d–1\.\d{3}\); median > ceiling 1\.03: NO VERDICT \(inside the A\/A band\)$/,
    );
    const v = verdictsOf(r, { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] })[0];
    expect(v?.verdict).toBe("noise");
  });

  it("never fails a single target for want of a candidate", () => {
    const d = judge(results({ single: true }), GUARD);
    expect(d.exitCode).toBe(EXIT.ok);
    expect(d.lines).toEqual(["guard: a single target, nothing to compare: not judged"]);
  });
});

describe("unguarded verdicts", () => {
  it("ranks a clear change lower/higher per cell, and calls an interval spanning 1.0 noise", () => {
    const r = results({ candidateFactor: 1, caseFactor: { snapshot: 0.7 }, trials: 8 });
    const cells = metricVerdicts(r, null).find((m) => m.metric === "completionMs")?.cells ?? [];
    expect(cells.map((c) => c.cell)).toEqual(["snapshot", "resume-none", "resume-one", "resume-many"]);
    expect(cells[0]?.verdict).toBe("lower");
    for (const c of cells.slice(1)) expect(c.verdict, c.cell).toBe("noise");
  });

  it("does not rank a change inside the A/A band", () => {
    const r = results({ candidateFactor: 1.03, aa: true, trials: 8, latencyNoise: 0.005, seed: 5 });
    for (const row of r.aa?.latency ?? []) if (row.completionMs !== null) row.completionMs *= 1.06;
    const cells = metricVerdicts(r, null).find((m) => m.metric === "completionMs")?.cells ?? [];
    for (const c of cells) {
      expect(c.ciLow as number, c.cell).toBeGreaterThan(1); // the interval alone would rank it
      expect(c.verdict, c.cell).toBe("noise");
      expect(c.outcome, c.cell).toBe("UNKNOWN");
      expect(c.reason).toMatch(/^interval 1\.0\d\d–1\.0\d\d inside the A\/A band 0\.9\d\d–1\.0\d\d$/);
    }
  });
});

describe("results.json verdict entries", () => {
  it("have one entry per metric and cell, memory cells named SCRIPTBYTESxCLIENTS/MODE", () => {
    const r = results({ trials: 8, memoryTrials: 3, aa: true });
    const v = verdictsOf(r, GUARD);
    // 3 latency metrics x 4 cases + 6 memory metrics x 8 cells
    expect(v).toHaveLength(3 * 4 + 6 * 8);
    const cell = v.find((x) => x.metric === "peakHeapBytes" && x.cell === "8192x4/memory");
    expect(cell).toMatchObject({ pairs: 3, plannedPairs: 3, verdict: "pass", guarded: true, indicative: true });
    for (const key of ["median", "ciLow", "ciHigh", "aaLow", "aaHigh"] as const)
      expect(typeof cell?.[key]).toBe("number");
    const open = v.find((x) => x.metric === "probeMs" && x.cell === "snapshot");
    expect(["lower", "higher", "noise", "missing"]).toContain(open?.verdict);
    expect(open?.guarded).toBe(false);
  });
});

describe("decideCell and the smallest detectable change", () => {
  const summary = summariseRatios([1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0], { seed: 1 });

  it("is wider than the interval's half-width and at least the A/A band's edge", () => {
    const d = detectableChange(summary, null) as number;
    const half = Math.sqrt((summary?.ci.high as number) / (summary?.ci.low as number));
    expect(d).toBeGreaterThan(half);
    expect(d).toBeLessThan(half ** 2);
    expect(detectableChange(summary, { low: 1 / 1.2, high: 1.2 })).toBe(1.2);
    expect(detectableChange(summariseRatios([1.1]), null)).toBeNull();
  });

  it("gives no pairs 'missing' and a single pair no interval", () => {
    expect(
      decideCell({ metric: "completionMs", cell: "snapshot", summary: null, plannedPairs: 8, band: null }, null)
        .verdict,
    ).toBe("missing");
    const one = decideCell(
      { metric: "completionMs", cell: "snapshot", summary: summariseRatios([1.2]), plannedPairs: 1, band: null },
      { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] },
    );
    expect(one).toMatchObject({ verdict: "fail", ciLow: null, ciHigh: null, detectable: null, indicative: true });
  });

  it("calls a cell 'no practical change' only when its whole interval lies inside the floor", () => {
    const floor = { percent: 1, bytes: 1024 * 1024, ms: 1 };
    const judge = (ratios: number[]) =>
      decideCell(
        {
          metric: "peakHeapBytes",
          cell: "1024x4/snapshot",
          summary: summariseRatios(ratios, { seed: 1 }),
          plannedPairs: ratios.length,
          band: { low: 0.8, high: 1.2 },
          baselineMedian: 45 * 1024 * 1024,
          floor,
        },
        null,
      );
    // Tight: every ratio within 0.4% of 1.
    const tight = judge([1.004, 0.998, 1.002, 0.999, 1.001, 1.003, 0.997, 1.0]);
    expect(tight.verdict).toBe("no-practical-change");
    // The same median, but the pairs reach ±20% (a fresh server's GC timing): it cannot say "no change".
    const wide = judge([1.2, 0.82, 1.15, 0.86, 1.001, 1.1, 0.9, 1.0]);
    expect(wide.median).toBeLessThan(1.01);
    expect(wide.verdict).toBe("noise");
  });
});
