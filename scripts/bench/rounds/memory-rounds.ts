// Sequential memory rounds, on by default: the memory plan starts with --memory-trials rounds, then adds
// one interleaved round at a time to the cells whose stopping metrics (peak heap, peak RSS and any
// guarded memory-cell metric) are not yet answered, by the sequential rule (verdicts/sequential.ts):
// DIFFERENT or SAME at a look (8, 12, 16 pairs), the cap, or the time budget spent. A cell may stop
// earlier, from SIGN_TEST_PAIRS pairs on, when every paired ratio lies within the practical floor
// (--min-effect): the median ratio is then below 1 + t and above 1 - t by two one-sided exact sign
// tests (each p = 2^-n, 1.6% at 6), which hold whatever the ratios' distribution. Such a stop can only
// end in SAME, so it does not add to the false alarms the rule's looks pay for.
// Pure apart from the clock, which is passed in.

import type { MemoryRoundsInfo, Results } from "../../results/schema.js";
import { cellPairs, memoryCellId } from "../../verdicts/cells.js";
import { sequentialNeed } from "../../verdicts/sequential.js";
import type { Reserve } from "../progress/eta.js";
import { type MemoryCell, type MemoryTrial, memoryRound } from "./plan.js";
import {
  createSequentialRounds,
  type Need,
  sequentialReserve,
  stoppingVerdicts,
  toleranceIn,
} from "./sequential-rounds.js";

/** The fewest pairs whose unanimous position inside the floor is significant (each one-sided p = 2^-6 = 1.6%). */
export const SIGN_TEST_PAIRS = 6;

/** Pure: at least SIGN_TEST_PAIRS ratios, every one within `tolerance` of 1.0 (|ratio - 1| < tolerance). */
export function withinFloor(ratios: readonly number[], tolerance: number): boolean {
  return ratios.length >= SIGN_TEST_PAIRS && ratios.every((r) => Math.abs(r - 1) < tolerance);
}

/** Pure: per memory cell, whether it needs another round and, if not, why. */
export function memoryCellNeeds(results: Results): Map<string, Need> {
  const tolerance = toleranceIn(results);
  const needs = new Map<string, Need>();
  for (const [cell, vs] of stoppingVerdicts(results, "memory")) {
    const need = sequentialNeed(vs, tolerance);
    // The guard decides only from its minimum pairs: the sign test does not stop a cell short of them.
    const judgeable = vs.every((v) => v.verdict !== "too-few-pairs");
    const equivalent =
      judgeable && vs.every((v) => withinFloor(cellPairs(results, v.metric, cell).ratios, tolerance(v)));
    needs.set(cell, need === "more" && equivalent ? "equivalent" : need);
  }
  return needs;
}

/** What the rounds may add to the run, for the ETA's range (sequentialReserve). */
export function memoryRoundsReserve(o: {
  budgetSeconds: number;
  variants: readonly string[];
  cells: readonly MemoryCell[];
  plannedTrials: number;
}): Reserve {
  return sequentialReserve((i) => memoryRound(o.cells, o.variants, i), o);
}

export interface MemoryRounds {
  /** The next round for the cells that need one, or [] when done. */
  more: () => MemoryTrial[];
  info: () => MemoryRoundsInfo;
}

export function createMemoryRounds(o: {
  budgetSeconds: number;
  variants: readonly string[];
  cells: readonly MemoryCell[];
  results: () => Results;
  now: () => number;
}): MemoryRounds {
  const byId = new Map(o.cells.map((c) => [memoryCellId(c), c]));
  return createSequentialRounds<MemoryTrial>({
    matrix: "memory",
    budgetSeconds: o.budgetSeconds,
    cells: [...byId.keys()],
    needs: memoryCellNeeds,
    round: (id, trial) => {
      const cell = byId.get(id);
      return cell ? memoryRound([cell], o.variants, trial) : [];
    },
    results: o.results,
    now: o.now,
  });
}
