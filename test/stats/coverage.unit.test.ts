// Statistical coverage: on synthetic paired data with a known true median ratio, the 95% bootstrap
// interval of the median paired ratio contains the truth 95% +- 2% of the time.
//
// Data model: candidate_i = baseline_i * r * exp(e_i) with e_i symmetric around 0, so every paired
// ratio is r * exp(e_i) and their population median is exactly r (the median of a symmetric
// distribution is its centre, and exp is monotone). Baselines vary (log-normal) to show pairing
// cancels them. Deterministic: every simulation has its own seed.
import { describe, expect, it } from "vitest";
import { randomFloats } from "../../common/prng.js";
import { intervalCell } from "../../scripts/report/verdict-wording.js";
import type { CellVerdict } from "../../scripts/results/verdict-record.js";
import { bootstrapRatioCI, pairedRatios, summariseRatios } from "../../scripts/util/stats.js";
import { decideCell } from "../../scripts/verdicts/cells.js";

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
function laplace(random: () => number): number {
  const u = random() - 0.5;
  return (-Math.sign(u) * Math.log(1 - 2 * Math.abs(u))) / Math.SQRT2;
}

function coverage(opts: {
  n: number;
  simulations: number;
  resamples: number;
  trueRatio: number;
  noise: (r: () => number) => number;
  sigma: number;
  smooth?: boolean;
}): number {
  let hits = 0;
  for (let s = 0; s < opts.simulations; s++) {
    const random = randomFloats(1_000_003 * (s + 1));
    const baseline: number[] = [];
    const candidate: number[] = [];
    for (let i = 0; i < opts.n; i++) {
      const b = 200 * Math.exp(0.5 * gaussian(random));
      baseline.push(b);
      candidate.push(b * opts.trueRatio * Math.exp(opts.sigma * opts.noise(random)));
    }
    const ratios = pairedRatios(baseline, candidate);
    const ci = bootstrapRatioCI(ratios, { resamples: opts.resamples, seed: s + 1, smooth: opts.smooth ?? true });
    if (ci.low <= opts.trueRatio && opts.trueRatio <= ci.high) hits++;
  }
  return hits / opts.simulations;
}

describe("the per-cell interval: coverage at a cell's pair counts", () => {
  // A latency cell has 8-10 pairs by default; a memory cell 3. The report calls an interval from
  // fewer than 8 pairs "indicative": this is the measurement behind that word.
  it("covers the truth in 95% +- 2% of 2,000 simulations at 10 pairs, and the report does not call it indicative", () => {
    const c = coverage({ n: 10, simulations: 2000, resamples: 500, trueRatio: 1.1, noise: gaussian, sigma: 0.05 });
    console.log(`coverage n=10 normal: ${(c * 100).toFixed(2)}%`);
    expect(c).toBeGreaterThanOrEqual(0.93);
    expect(c).toBeLessThanOrEqual(0.97);
    expect(cellAt(10).indicative).toBe(false);
  });

  it("undercovers at 3 pairs (80-92%, not 95%), and the report marks such an interval indicative", () => {
    const c = coverage({ n: 3, simulations: 2000, resamples: 500, trueRatio: 0.9, noise: gaussian, sigma: 0.05 });
    console.log(`coverage n=3 normal: ${(c * 100).toFixed(2)}%`);
    expect(c).toBeGreaterThanOrEqual(0.8);
    expect(c).toBeLessThan(0.92);
    expect(cellAt(3).indicative).toBe(true);
    expect(intervalCell(cellAt(3))).toMatch(/^[\d.]+–[\d.]+ \(indicative\)$/);
    expect(intervalCell(cellAt(10))).toMatch(/^[\d.]+–[\d.]+$/);
  });
});

describe("bootstrap CI of the median paired ratio: coverage", () => {
  it("covers a true ratio of 0.7 in 95% +- 2% of 2,000 simulations (12 pairs, normal log-noise)", () => {
    const c = coverage({ n: 12, simulations: 2000, resamples: 500, trueRatio: 0.7, noise: gaussian, sigma: 0.1 });
    console.log(`coverage n=12 normal: ${(c * 100).toFixed(2)}%`);
    expect(c).toBeGreaterThanOrEqual(0.93);
    expect(c).toBeLessThanOrEqual(0.97);
  });

  it("covers a true ratio of 1.03 in 95% +- 2% of 2,000 simulations (24 pairs, heavy-tailed log-noise)", () => {
    const c = coverage({ n: 24, simulations: 2000, resamples: 400, trueRatio: 1.03, noise: laplace, sigma: 0.05 });
    console.log(`coverage n=24 laplace: ${(c * 100).toFixed(2)}%`);
    expect(c).toBeGreaterThanOrEqual(0.93);
    expect(c).toBeLessThanOrEqual(0.97);
  });
});

/** A cell's verdict from n paired ratios around 1.0 (what the report renders for it). */
function cellAt(n: number): CellVerdict {
  const ratios = Array.from({ length: n }, (_, i) => 1 + 0.01 * (i - (n - 1) / 2));
  return decideCell(
    { metric: "peakHeapBytes", cell: "8192x4/memory", summary: summariseRatios(ratios), plannedPairs: n, band: null },
    null,
  );
}
