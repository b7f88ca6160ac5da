// Sequential latency rounds, on by default (--latency-sequential): after the planned --trials rounds,
// one interleaved round at a time for the latency cases whose stopping metrics (the headline latency
// metrics and any guarded one) are not yet DIFFERENT or SAME at a look of the sequential rule
// (verdicts/sequential.ts), until the cap or the time budget. Pure apart from the clock.
import type { LatencyCase, MemoryRoundsInfo, Results } from "../../results/schema.js";
import type { Reserve } from "../progress/eta.js";
import { type LatencyTrial, latencyRound } from "./plan.js";
import { createSequentialRounds, latencyCellNeeds, sequentialReserve } from "./sequential-rounds.js";

export interface LatencyRounds {
  more: () => LatencyTrial[];
  info: () => MemoryRoundsInfo;
}

/** What the rounds may add, for the ETA's range: every case up to the cap, or the budget plus a round. */
export function latencyRoundsReserve(o: {
  budgetSeconds: number;
  variants: readonly string[];
  cases: readonly LatencyCase[];
  plannedTrials: number;
}): Reserve {
  return sequentialReserve((i) => latencyRound(o.cases, o.variants, i), o);
}

export function createLatencyRounds(o: {
  budgetSeconds: number;
  variants: readonly string[];
  cases: readonly LatencyCase[];
  results: () => Results;
  now: () => number;
}): LatencyRounds {
  return createSequentialRounds<LatencyTrial>({
    matrix: "latency",
    budgetSeconds: o.budgetSeconds,
    cells: [...o.cases],
    needs: latencyCellNeeds,
    round: (cell, trial) => {
      const kase = o.cases.find((c) => c === cell);
      return kase ? latencyRound([kase], o.variants, trial) : [];
    },
    results: o.results,
    now: o.now,
  });
}
