// Sequential memory rounds, on by default: the memory plan starts with --memory-trials rounds, then adds
// one interleaved round at a time to the cells whose headline verdicts (peak heap, peak RSS) are not yet
// clear, until each has RELIABLE_PAIRS pairs or the time budget is spent. A cell may stop early, from
// SIGN_TEST_PAIRS pairs on, on an exact sign test that holds whatever the ratios' distribution (where
// the bootstrap interval of so few pairs undercovers), one of two kinds for both metrics alike:
// - "clear": every paired ratio lies beyond the A/A band and 1.0 on the same side (two-sided
//   p = 2^(1-n), 3.1% at 6 pairs);
// - "equivalent": every paired ratio lies within the practical floor (--min-effect), so the median
//   ratio is below 1 + t and above 1 - t by two one-sided sign tests (each p = 2^-n, 1.6% at 6).
// Pure apart from the clock, which is passed in.

import { HEADLINE_MEMORY_METRICS, type Metric, unitOf } from "../results/metric-names.js";
import type { MemoryRoundsInfo, MemoryRoundsWhy, Results } from "../results/schema.js";
import { cellPairs, memoryCellId, RELIABLE_PAIRS, verdictsOf } from "../verdicts/cells.js";
import { floorTolerance, minEffectFromConfig } from "../verdicts/practical.js";
import type { Reserve } from "./eta.js";
import { type MemoryCell, type MemoryTrial, memoryRound, trialKind } from "./plan.js";

/** The fewest pairs whose unanimous sign is significant at 5% two-sided (2^(1-6) = 3.1%). */
export const SIGN_TEST_PAIRS = 6;

/** A cell's need: another round, or why none (the reasons results.json keeps, but "budget"). */
type Need = "more" | Exclude<MemoryRoundsWhy, "budget">;

type Judged = { pairs: number; aaLow: number | null; aaHigh: number | null; verdict: string };

/**
 * Pure: at least SIGN_TEST_PAIRS ratios, every one beyond the A/A band and 1.0 on the same side
 * (all above max(1, band high), or all below min(1, band low)).
 */
export function clearOfBand(v: Judged, ratios: readonly number[]): boolean {
  if (v.aaLow === null || v.aaHigh === null || ratios.length < SIGN_TEST_PAIRS) return false;
  const { aaLow, aaHigh } = v;
  return ratios.every((r) => r > Math.max(1, aaHigh)) || ratios.every((r) => r < Math.min(1, aaLow));
}

/** Pure: at least SIGN_TEST_PAIRS ratios, every one within `tolerance` of 1.0 (|ratio - 1| < tolerance). */
export function withinFloor(ratios: readonly number[], tolerance: number): boolean {
  return ratios.length >= SIGN_TEST_PAIRS && ratios.every((r) => Math.abs(r - 1) < tolerance);
}

/** Pure: per memory cell, whether it needs another round and, if not, why. */
export function memoryCellNeeds(results: Results, targetPairs = RELIABLE_PAIRS): Map<string, Need> {
  const byCell = new Map<string, (Judged & { metric: Metric })[]>();
  for (const v of verdictsOf(results, null)) {
    if (!HEADLINE_MEMORY_METRICS.includes(v.metric)) continue;
    byCell.set(v.cell, [...(byCell.get(v.cell) ?? []), v]);
  }
  const floor = minEffectFromConfig(results.run.config ?? {});
  const needs = new Map<string, Need>();
  for (const [cell, vs] of byCell) {
    const pairs = vs.map((v) => cellPairs(results, v.metric, cell));
    // A failed pair is not brought back by more rounds (the verdict stays "missing").
    if (vs.some((v) => v.verdict === "missing")) needs.set(cell, "missing");
    else if (vs.every((v) => v.pairs >= targetPairs)) needs.set(cell, "pairs");
    else if (vs.every((v, i) => clearOfBand(v, pairs[i]?.ratios ?? []))) needs.set(cell, "clear");
    else if (
      pairs.every((p, i) =>
        withinFloor(p.ratios, floorTolerance(p.baselineMedian, unitOf(vs[i]?.metric as Metric), floor)),
      )
    )
      needs.set(cell, "equivalent");
    else needs.set(cell, "more");
  }
  return needs;
}

/**
 * What the rounds may add to the run, for the ETA's range: every cell up to the target pairs, or the
 * budget plus one whole round (a round starts while budget is left and runs to its end).
 */
export function memoryRoundsReserve(o: {
  budgetSeconds: number;
  variants: readonly string[];
  cells: readonly MemoryCell[];
  plannedTrials: number;
  targetPairs?: number;
}): Reserve {
  const more = Math.max(0, (o.targetPairs ?? RELIABLE_PAIRS) - o.plannedTrials);
  return {
    kinds: Array.from({ length: more }, (_, i) => memoryRound(o.cells, o.variants, i + 1))
      .flat()
      .map(trialKind),
    budgetMs: o.budgetSeconds * 1000,
    roundKinds: memoryRound(o.cells, o.variants, 1).map(trialKind),
  };
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
  targetPairs?: number;
}): MemoryRounds {
  const target = o.targetPairs ?? RELIABLE_PAIRS;
  let spentMs = 0;
  let roundStart: number | null = null;
  const rows = () => [...o.results().memory, ...(o.results().aa?.memory ?? [])];
  const lastRound = (id: string) => rows().reduce((m, r) => (memoryCellId(r) === id ? Math.max(m, r.trial) : m), 0);
  return {
    more() {
      const now = o.now();
      if (roundStart !== null) spentMs += now - roundStart;
      roundStart = null;
      if (spentMs >= o.budgetSeconds * 1000) return [];
      const needs = memoryCellNeeds(o.results(), target);
      const trials = o.cells
        .filter((c) => needs.get(memoryCellId(c)) === "more")
        .flatMap((c) => memoryRound([c], o.variants, lastRound(memoryCellId(c)) + 1));
      if (trials.length > 0) roundStart = now;
      return trials;
    },
    info() {
      const needs = memoryCellNeeds(o.results(), target);
      const verdicts = verdictsOf(o.results(), null).filter((v) => v.metric === "peakHeapBytes");
      return {
        budgetSeconds: o.budgetSeconds,
        spentSeconds: Math.round(spentMs) / 1000,
        targetPairs: target,
        cells: o.cells.map((c) => {
          const id = memoryCellId(c);
          const need = needs.get(id) ?? "missing";
          return {
            cell: id,
            pairs: verdicts.find((v) => v.cell === id)?.pairs ?? 0,
            why: need === "more" ? "budget" : need,
          };
        }),
      };
    },
  };
}
