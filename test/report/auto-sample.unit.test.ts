// Auto-sampling decisions on synthetic runs: only guarded cells whose interval straddles the ceiling
// get more rounds; each round is interleaved (every variant, rotated start); sampling stops when the
// cell is decided or the time budget is spent, and reports the rounds each cell took.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomFloats } from "../../common/prng.js";
import { createAutoRounds } from "../../scripts/bench/rounds/auto-rounds.js";
import type { LatencyTrial } from "../../scripts/bench/rounds/plan.js";
import type { LatencyRow, Results } from "../../scripts/results/schema.js";
import { cellsToResample } from "../../scripts/verdicts/cells.js";
import { syntheticResults } from "./synthetic-run.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const GUARD = { ceiling: 1.03, minPairs: 1, metrics: ["completionMs"] };
const CASES = ["snapshot", "resume-none", "resume-one", "resume-many"] as const;

/** Three rounds where resume-many is about 3% slower: its interval straddles 1.03; the rest are clearly faster. */
function straddling(): Results {
  const d = mkdtempSync(join(tmpdir(), "catchup-auto-"));
  dirs.push(d);
  const r = syntheticResults(d, {
    candidateFactor: 0.7,
    caseFactor: { "resume-many": 1.03 / 0.7 },
    trials: 3,
    aa: true,
    seed: 7,
  });
  r.memory = [];
  if (r.aa) r.aa.memory = [];
  return r;
}

/** Runs a round as the runner would: one row per trial, candidate `ratio` times the baseline. */
function run(r: Results, trials: LatencyTrial[], ratio: number, random: () => number): void {
  for (const t of trials) {
    const base = 700 * (1 + 0.01 * (random() * 2 - 1));
    const row: LatencyRow = {
      case: t.case,
      variant: t.variant,
      trial: t.trial,
      ok: true,
      completionMs: t.variant === "batched" ? base * ratio : base,
      firstChunkMs: 20,
      chunks: 1,
      values: 1,
      bytes: 1,
      probeMs: 3,
      error: null,
    };
    if (t.variant === "A2") r.aa?.latency.push(row);
    else r.latency.push(row);
  }
}

function sampler(r: Results, budgetSeconds: number, clock: { t: number }) {
  return createAutoRounds({
    budgetSeconds,
    guard: GUARD,
    variants: ["legacy", "batched", "A2"],
    cases: CASES,
    cells: [],
    results: () => r,
    now: () => clock.t,
  });
}

describe("auto-sampling", () => {
  it("picks only the guarded cells whose interval straddles the ceiling", () => {
    const r = straddling();
    expect(cellsToResample(r, GUARD)).toEqual({ latency: ["resume-many"], memory: [] });
    // Not guarded: nothing to decide.
    expect(cellsToResample(r, { ceiling: 1.03, minPairs: 1, metrics: ["peakHeapBytes"] })).toEqual({
      latency: [],
      memory: [],
    });
  });

  it("adds interleaved rounds (every variant, rotated start) until the cell is decided", () => {
    const r = straddling();
    const clock = { t: 0 };
    const auto = sampler(r, 600, clock);
    const random = randomFloats(3);
    const firsts: string[] = [];
    let rounds = 0;
    for (;;) {
      const trials = auto.moreLatency();
      if (trials.length === 0) break;
      rounds++;
      expect(new Set(trials.map((t) => t.case))).toEqual(new Set(["resume-many"]));
      expect(trials.map((t) => t.variant).sort()).toEqual(["A2", "batched", "legacy"]);
      expect(new Set(trials.map((t) => t.trial))).toEqual(new Set([3 + rounds]));
      firsts.push(trials[0]?.variant as string);
      clock.t += 1000;
      run(r, trials, 1.2, random); // the truth: 20% slower, so the cell must end decided as a FAIL
      expect(rounds).toBeLessThan(50);
    }
    expect(rounds).toBeGreaterThan(0);
    expect(new Set(firsts.slice(0, 3)).size).toBe(Math.min(3, rounds)); // the start rotates each round
    const info = auto.info();
    expect(info.cells).toEqual([{ matrix: "latency", cell: "resume-many", rounds: 3 + rounds, decided: true }]);
    expect(info.spentSeconds).toBe(rounds);
    expect(cellsToResample(r, GUARD).latency).toEqual([]);
  });

  it("stops when the time budget is spent and says the cell is still undecided", () => {
    const r = straddling();
    const clock = { t: 0 };
    const auto = sampler(r, 2, clock);
    const random = randomFloats(4);
    let rounds = 0;
    for (;;) {
      const trials = auto.moreLatency();
      if (trials.length === 0) break;
      rounds++;
      clock.t += 1500;
      run(r, trials, 1.03, random); // right at the ceiling: never decided
    }
    expect(rounds).toBe(2); // 1.5 s, then 3 s spent > 2 s budget
    const info = auto.info();
    expect(info.spentSeconds).toBe(3);
    expect(info.cells).toEqual([{ matrix: "latency", cell: "resume-many", rounds: 5, decided: false }]);
  });
});
