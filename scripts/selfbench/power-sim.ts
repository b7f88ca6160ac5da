// bench:power's simulation (pure apart from its seed): the sequential rule (verdicts/sequential.ts) run
// on simulated cells whose change is known, through the same decideCell, bootstrap and A/A band the
// report uses. Each round draws a baseline, a candidate and the baseline's A/A copy, each with
// log-normal noise of sd σ per trial, the candidate scaled by the change. A cell is judged at 8 pairs
// (the planned rounds), then at 12 and 16 while its outcome is UNKNOWN and an answer is within reach
// (the futility stop). Per setting it counts the
// cells called DIFFERENT: with no change, false alarms; with a 5% change, detections. The same cells
// judged at 95% at every look (no correction) show what peeking without paying for it would cost.
import { randomFloats } from "../../common/prng.js";
import { DEFAULT_MIN_EFFECT } from "../results/metric-floor.js";
import { practicalTolerance } from "../results/metric-names.js";
import type { Outcome } from "../results/outcome.js";
import { bootstrapRatioCI, seedFromString, summariseRatios } from "../util/stats.js";
import { aaBandOf, decideCell, RESAMPLES } from "../verdicts/cells.js";
import { chanceByCap, FUTILITY_CHANCE, LOOK_LEVEL, LOOKS } from "../verdicts/sequential.js";
import { wilson } from "./power-table.js";

export interface SimSetting {
  /** Per-trial noise, sd of the log figure (0.02 = 2%). */
  noise: number;
  /** The candidate's change as a factor (1 = none, 1.05 = 5% slower). */
  change: number;
}

export interface SimRow extends SimSetting {
  cells: number;
  /** Cells called DIFFERENT. */
  different: number;
  same: number;
  unknown: number;
  /** The same cells at 95% at every look: DIFFERENT count without the correction. */
  uncorrected: number;
  /** Mean pairs a cell took. */
  meanPairs: number;
}

/** One simulated cell's figures over 16 rounds: ratios candidate/baseline and A/A copy/baseline. */
function drawCell(setting: SimSetting, seed: number): { ratios: number[]; aa: number[] } {
  const random = randomFloats(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const ratios: number[] = [];
  const aa: number[] = [];
  for (let i = 0; i < (LOOKS[LOOKS.length - 1] as number); i++) {
    const b = BASELINE_MS * Math.exp(setting.noise * normal());
    const c = BASELINE_MS * setting.change * Math.exp(setting.noise * normal());
    const a = BASELINE_MS * Math.exp(setting.noise * normal());
    ratios.push(c / b);
    aa.push(a / b);
  }
  return { ratios, aa };
}

/** The simulated baseline's median (ms): the 1% floor applies. */
const BASELINE_MS = 200;
const TOLERANCE = practicalTolerance("completionMs", BASELINE_MS, DEFAULT_MIN_EFFECT) ?? 0;

/** One cell's verdict at n pairs; `level` null judges on the 95% interval. */
function judgeAt(cell: { ratios: number[]; aa: number[] }, n: number, seed: number, level: number | null) {
  const ratios = cell.ratios.slice(0, n);
  const summary = summariseRatios(ratios, { resamples: RESAMPLES, seed });
  const aa = summariseRatios(cell.aa.slice(0, n), { resamples: RESAMPLES, seed: seed ^ 0xaa });
  const decision =
    level === null ? null : { level, ...bootstrapRatioCI(ratios, { resamples: RESAMPLES, seed, confidence: level }) };
  const input = { metric: "completionMs" as const, cell: "sim", summary, plannedPairs: n, band: aaBandOf(aa) };
  return decideCell({ ...input, baselineMedian: BASELINE_MS, floor: DEFAULT_MIN_EFFECT, decision }, null);
}

/** A cell under the rule: judged at each look until it is not UNKNOWN or its answer is out of reach. */
function sequentialCell(cell: { ratios: number[]; aa: number[] }, seed: number, level: number | null) {
  let outcome: Outcome = "UNKNOWN";
  let pairs = 0;
  for (const n of LOOKS) {
    pairs = n;
    const verdict = judgeAt(cell, n, seed, level);
    outcome = verdict.outcome;
    if (outcome !== "UNKNOWN" || chanceByCap(verdict, TOLERANCE) < FUTILITY_CHANCE) break;
  }
  return { outcome, pairs };
}

/** Simulates `cells` cells of one setting (seeded by the setting), under the rule and uncorrected. */
export function simulate(setting: SimSetting, cells: number): SimRow {
  const row: SimRow = { ...setting, cells, different: 0, same: 0, unknown: 0, uncorrected: 0, meanPairs: 0 };
  const base = seedFromString(`power-sim:${setting.noise}:${setting.change}`);
  for (let i = 0; i < cells; i++) {
    const seed = (base + i * 0x9e3779b1) >>> 0;
    const cell = drawCell(setting, seed);
    const ruled = sequentialCell(cell, seed, LOOK_LEVEL);
    const plain = sequentialCell(cell, seed, null);
    row.meanPairs += ruled.pairs / cells;
    if (ruled.outcome === "DIFFERENT") row.different++;
    else if (ruled.outcome === "SAME") row.same++;
    else row.unknown++;
    if (plain.outcome === "DIFFERENT") row.uncorrected++;
  }
  return row;
}

const pct = (k: number, n: number) => {
  const w = wilson(k, n);
  return `${((100 * k) / n).toFixed(1)}% (${(100 * w.low).toFixed(1)}–${(100 * w.high).toFixed(1)})`;
};

/** The side-by-side table: per noise level, false alarms (no change) and power (the change). */
export function simulationTable(rows: readonly SimRow[]): string[] {
  const noises = [...new Set(rows.map((r) => r.noise))];
  const lines = [
    "| noise per trial (sd) | false alarms, no change (95% Wilson) | uncorrected: 95% at every look | detected, +5% (95% Wilson) | SAME / UNKNOWN at +5% | mean pairs (no change / +5%) |",
    "|---|---|---|---|---|---|",
  ];
  for (const noise of noises) {
    const none = rows.find((r) => r.noise === noise && r.change === 1);
    const five = rows.find((r) => r.noise === noise && r.change !== 1);
    if (!none || !five) continue;
    lines.push(
      `| ${(noise * 100).toFixed(0)}% | ${pct(none.different, none.cells)} | ${pct(none.uncorrected, none.cells)} | ${pct(five.different, five.cells)} | ${five.same} / ${five.unknown} | ${none.meanPairs.toFixed(1)} / ${five.meanPairs.toFixed(1)} |`,
    );
  }
  return lines;
}
