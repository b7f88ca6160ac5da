// Rounds added by the sequential rule (verdicts/sequential.ts), for latency cases and memory cells
// alike: after the planned rounds, one interleaved round at a time for the cells whose stopping
// metrics are not yet answered at a look, until each is answered, reaches the cap, or the time budget
// is spent. Pure apart from the clock, which is passed in: the runner asks `more()` when its plan runs dry.

import { minEffectFromConfig } from "../../results/metric-floor.js";
import { practicalTolerance } from "../../results/metric-names.js";
import type { MemoryRoundsInfo, MemoryRoundsWhy, Results } from "../../results/schema.js";
import type { CellVerdict } from "../../results/verdict-record.js";
import { cellPairs, guardFromConfig, memoryCellId, verdictsOf } from "../../verdicts/cells.js";
import {
  LOOKS,
  type Matrix,
  matrixOf,
  SEQUENTIAL_CAP,
  sequentialNeed,
  stoppingMetrics,
} from "../../verdicts/sequential.js";
import type { Reserve } from "../progress/eta.js";
import { trialKind } from "./plan.js";

/** A cell's need: another round, or why none (the reasons results.json keeps, but "budget"). */
export type Need = "more" | Exclude<MemoryRoundsWhy, "budget">;

/** Pure: per cell of a matrix, the verdicts of its stopping metrics, judged as the run will judge them. */
export function stoppingVerdicts(results: Results, matrix: Matrix): Map<string, CellVerdict[]> {
  const config = results.run.config ?? {};
  const guard = guardFromConfig(config);
  const metrics = stoppingMetrics(matrix, guard?.metrics);
  const byCell = new Map<string, CellVerdict[]>();
  for (const v of verdictsOf(results, guard, minEffectFromConfig(config))) {
    if (matrixOf(v.metric) !== matrix || !metrics.includes(v.metric)) continue;
    byCell.set(v.cell, [...(byCell.get(v.cell) ?? []), v]);
  }
  return byCell;
}

/**
 * Pure: a verdict's practical floor tolerance in its cell (its metric's rule at the cell's baseline);
 * a floor that reaches the baseline counts as none (the cell is "not-judged", which the rule stops on).
 */
export function toleranceIn(results: Results): (v: CellVerdict) => number {
  const floor = minEffectFromConfig(results.run.config ?? {});
  return (v) => practicalTolerance(v.metric, cellPairs(results, v.metric, v.cell).baselineMedian, floor) ?? 0;
}

/** Pure: per latency case, whether it needs another round and, if not, why. */
export function latencyCellNeeds(results: Results): Map<string, Need> {
  const needs = new Map<string, Need>();
  const tolerance = toleranceIn(results);
  for (const [cell, vs] of stoppingVerdicts(results, "latency")) needs.set(cell, sequentialNeed(vs, tolerance));
  return needs;
}

export interface SequentialRounds<T> {
  /** The next round for the cells that need one, or [] when done. */
  more: () => T[];
  info: () => MemoryRoundsInfo;
}

/** The last round a cell has rows for, baseline, candidate and A/A copy together. */
export function lastRoundOf(results: Results, matrix: Matrix, cell: string): number {
  const rows =
    matrix === "latency"
      ? [...results.latency, ...(results.aa?.latency ?? [])].filter((r) => r.case === cell)
      : [...results.memory, ...(results.aa?.memory ?? [])].filter((r) => memoryCellId(r) === cell);
  return rows.reduce((m, r) => Math.max(m, r.trial), 0);
}

export function createSequentialRounds<T>(o: {
  matrix: Matrix;
  budgetSeconds: number;
  /** The cells in plan order. */
  cells: readonly string[];
  needs: (results: Results) => Map<string, Need>;
  /** One round of a cell, its trials numbered `trial`. */
  round: (cell: string, trial: number) => T[];
  results: () => Results;
  now: () => number;
}): SequentialRounds<T> {
  let spentMs = 0;
  // Time is counted from issuing a round to the next ask: the rounds' own run time.
  let roundStart: number | null = null;
  return {
    more() {
      const now = o.now();
      if (roundStart !== null) spentMs += now - roundStart;
      roundStart = null;
      if (spentMs >= o.budgetSeconds * 1000) return [];
      const results = o.results();
      const needs = o.needs(results);
      const trials = o.cells
        .filter((c) => needs.get(c) === "more")
        .flatMap((c) => o.round(c, lastRoundOf(results, o.matrix, c) + 1));
      if (trials.length > 0) roundStart = now;
      return trials;
    },
    info() {
      const results = o.results();
      const needs = o.needs(results);
      const judged = stoppingVerdicts(results, o.matrix);
      return {
        budgetSeconds: o.budgetSeconds,
        spentSeconds: Math.round(spentMs) / 1000,
        targetPairs: SEQUENTIAL_CAP,
        cells: o.cells.map((cell) => {
          const need = needs.get(cell) ?? "missing";
          const pairs = Math.min(...(judged.get(cell) ?? []).map((v) => v.pairs));
          return { cell, pairs: Number.isFinite(pairs) ? pairs : 0, why: need === "more" ? "budget" : need };
        }),
      };
    },
  };
}

/**
 * What a matrix's rounds may add, for the ETA's range: every cell up to the cap, or the budget plus
 * one whole round (a round starts while budget is left and runs to its end); the rounds to the first
 * look are expected (before it only a memory cell's early SAME can stop a cell).
 */
export function sequentialReserve(
  round: (index: number) => object[],
  o: { budgetSeconds: number; plannedTrials: number },
): Reserve {
  const rounds = (n: number) =>
    Array.from({ length: Math.max(0, n - o.plannedTrials) }, (_, i) => round(i + 1))
      .flat()
      .map(trialKind);
  return {
    kinds: rounds(SEQUENTIAL_CAP),
    budgetMs: o.budgetSeconds * 1000,
    roundKinds: round(1).map(trialKind),
    expected: rounds(LOOKS[0] as number),
  };
}
