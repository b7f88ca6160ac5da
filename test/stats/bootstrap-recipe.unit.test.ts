// The bootstrap recipe of docs/statistics.md ("Reproducing an interval"), written out here on its own
// code path (its own FNV-1a, mulberry32, draw order and quantiles, not the module's functions), must
// give every bit of the interval the verdicts report: an independent recomputation from results.json
// reproduces each interval exactly.
import { describe, expect, it } from "vitest";
import { bootstrapRatioCI, seedFromString, summariseRatios } from "../../scripts/util/stats.js";
import { decideCell, RESAMPLES } from "../../scripts/verdicts/cells.js";
import { LOOK_LEVEL } from "../../scripts/verdicts/sequential.js";

/** Step 1: the seed, FNV-1a (32 bits) over the UTF-16 code units of "metric:cell". */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const ch of text) {
    h = (h ^ (ch.codePointAt(0) as number)) >>> 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Step 2: mulberry32 from that seed, one float in [0, 1) per call. */
function mulberry(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Steps 3-6: logs, bandwidth, B resamples (index, then two uniforms per value), type-7 ends, exp. */
function recipe(ratios: number[], seed: number, level: number): { low: number; high: number } {
  const x = ratios.map(Math.log);
  const n = x.length;
  let sum = 0;
  for (const v of x) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of x) ss += (v - mean) ** 2;
  const h = Math.sqrt(ss / (n - 1)) / Math.sqrt(n);
  const next = mulberry(seed);
  const medians: number[] = [];
  for (let b = 0; b < RESAMPLES; b++) {
    const sample: number[] = [];
    for (let i = 0; i < n; i++) {
      const picked = x[Math.floor(next() * n)] as number;
      const u = 1 - next();
      const w = next();
      sample.push(picked + h * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w));
    }
    sample.sort((p, q) => p - q);
    const mid = Math.floor(n / 2);
    medians.push(n % 2 === 1 ? (sample[mid] as number) : ((sample[mid - 1] as number) + (sample[mid] as number)) / 2);
  }
  medians.sort((p, q) => p - q);
  const type7 = (p: number) => {
    const at = (RESAMPLES - 1) * p;
    const lo = Math.floor(at);
    const a = medians[lo] as number;
    const c = medians[Math.ceil(at)] as number;
    return a + (at - lo) * (c - a);
  };
  const alpha = (1 - level) / 2;
  return { low: Math.exp(type7(alpha)), high: Math.exp(type7(1 - alpha)) };
}

describe("the documented bootstrap recipe", () => {
  const ratios = [0.912, 0.944, 0.931, 0.987, 0.958, 0.903, 0.95, 0.966, 0.921, 0.942];
  const seed = fnv1a("peakRssBytes:8192x4/memory");

  it("derives the seed as the module does", () => {
    expect(seed).toBe(seedFromString("peakRssBytes:8192x4/memory"));
  });

  it("reproduces a cell's 95% interval and the sequential rule's interval bit for bit", () => {
    const summary = summariseRatios(ratios, { resamples: RESAMPLES, seed });
    const v = decideCell(
      {
        metric: "peakRssBytes",
        cell: "8192x4/memory",
        summary,
        plannedPairs: ratios.length,
        band: null,
        decision: {
          level: LOOK_LEVEL,
          ...bootstrapRatioCI(ratios, { resamples: RESAMPLES, seed, confidence: LOOK_LEVEL }),
        },
      },
      null,
    );
    const ours = recipe(ratios, seed, 0.95);
    expect([v.ciLow, v.ciHigh]).toEqual([ours.low, ours.high]);
    const rule = recipe(ratios, seed, LOOK_LEVEL);
    expect([v.decision?.low, v.decision?.high]).toEqual([rule.low, rule.high]);
    // The A/A interval: the same recipe from the seed XOR 0xaa.
    const aa = summariseRatios(ratios, { resamples: RESAMPLES, seed: seed ^ 0xaa });
    expect(aa?.ci).toEqual(recipe(ratios, (seed ^ 0xaa) >>> 0, 0.95));
  });
});
