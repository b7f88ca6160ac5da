// Auto-sampling (--auto-sample) adds rounds: after the planned rounds, a round at a time for the
// guarded cells whose verdict is still open (interval straddling the ceiling, or above it inside the
// A/A band), until every such cell is decided or the time budget is spent. Pure apart from the clock,
// which is passed in: the runner asks `more()` each time its plan runs dry.

import type { AutoSampleInfo, LatencyCase, Results } from "../../results/schema.js";
import { cellsToResample, type GuardConfig, memoryCellId, verdictsOf } from "../../verdicts/cells.js";
import type { Reserve } from "../progress/eta.js";
import { type LatencyTrial, latencyRound, type MemoryCell, type MemoryTrial, memoryRound, trialKind } from "./plan.js";

export interface AutoRoundsOptions {
  budgetSeconds: number;
  guard: GuardConfig;
  /** Every variant of a round, baseline first (the A/A copy included). */
  variants: readonly string[];
  cases: readonly LatencyCase[];
  cells: readonly MemoryCell[];
  /** The results so far (rows are appended as trials finish). */
  results: () => Results;
  now: () => number;
}

export interface AutoRounds {
  /** The next round of latency trials for the open latency cells, or [] when done. */
  moreLatency: () => LatencyTrial[];
  /** The next round of memory trials for the open memory cells, or [] when done. */
  moreMemory: () => MemoryTrial[];
  /** What auto-sampling did, for results.json. */
  info: () => AutoSampleInfo;
}

/** The last round a cell has rows for (its next round is one more). */
function lastRound(rows: readonly { trial: number }[]): number {
  return rows.reduce((m, r) => Math.max(m, r.trial), 0);
}

/**
 * What auto-sampling may add to the run, for the ETA's range: only its budget bounds it, plus the
 * largest round (every case's, or every memory cell's) that may start just before the budget is spent.
 */
export function autoRoundsReserve(
  o: Pick<AutoRoundsOptions, "budgetSeconds" | "variants" | "cases" | "cells">,
): Reserve {
  const latency = latencyRound(o.cases, o.variants, 1).map(trialKind);
  const memory = memoryRound(o.cells, o.variants, 1).map(trialKind);
  return { kinds: null, budgetMs: o.budgetSeconds * 1000, roundKinds: memory.length > 0 ? memory : latency };
}

export function createAutoRounds(o: AutoRoundsOptions): AutoRounds {
  const budgetMs = o.budgetSeconds * 1000;
  let spentMs = 0;
  // Time is counted from issuing a round to the next ask: the rounds' own run time.
  let roundStart: number | null = null;
  const touched = new Map<string, "latency" | "memory">();

  const next = <T>(matrix: "latency" | "memory", build: (open: string[]) => T[]): T[] => {
    const now = o.now();
    if (roundStart !== null) spentMs += now - roundStart;
    roundStart = null;
    if (spentMs >= budgetMs) return [];
    const open = cellsToResample(o.results(), o.guard)[matrix];
    if (open.length === 0) return [];
    for (const cell of open) touched.set(cell, matrix);
    const trials = build(open);
    if (trials.length > 0) roundStart = now;
    return trials;
  };

  return {
    moreLatency: () =>
      next("latency", (open) => {
        const rows = [...o.results().latency, ...(o.results().aa?.latency ?? [])];
        return open.flatMap((cell) => {
          const kase = o.cases.find((c) => c === cell);
          if (!kase) return [];
          return latencyRound([kase], o.variants, lastRound(rows.filter((r) => r.case === kase)) + 1);
        });
      }),
    moreMemory: () =>
      next("memory", (open) => {
        const rows = [...o.results().memory, ...(o.results().aa?.memory ?? [])];
        return open.flatMap((id) => {
          const cell = o.cells.find((c) => memoryCellId(c) === id);
          if (!cell) return [];
          return memoryRound([cell], o.variants, lastRound(rows.filter((r) => memoryCellId(r) === id)) + 1);
        });
      }),
    info: () => {
      const results = o.results();
      const verdicts = verdictsOf(results, o.guard);
      const open = cellsToResample(results, o.guard);
      const cells = [...touched].map(([cell, matrix]) => {
        const rows =
          matrix === "latency"
            ? results.latency.filter((r) => r.case === cell)
            : results.memory.filter((r) => memoryCellId(r) === cell);
        const stillOpen =
          open[matrix].includes(cell) || verdicts.some((v) => v.cell === cell && v.verdict === "missing" && v.guarded);
        return { matrix, cell, rounds: lastRound(rows), decided: !stillOpen };
      });
      return { budgetSeconds: o.budgetSeconds, spentSeconds: Math.round(spentMs) / 1000, cells };
    },
  };
}
