// The rounds a run adds beyond its plan: auto-sampling's (guarded cells whose verdict is still
// open) and the sequential rule's, latency and memory (cells not yet DIFFERENT or SAME). They join the progress total
// as they are planned; until then they are a reserve on the ETA's range.
import type { Results } from "../../results/schema.js";
import type { Reserve } from "../progress/eta.js";
import type { Progress } from "../progress/progress.js";
import type { BenchConfig } from "../run/config.js";
import { autoRoundsReserve, createAutoRounds } from "./auto-rounds.js";
import { createLatencyRounds, latencyRoundsReserve } from "./latency-rounds.js";
import { createMemoryRounds, memoryRoundsReserve } from "./memory-rounds.js";
import { type LatencyTrial, type MemoryCell, type MemoryTrial, trialKind } from "./plan.js";

export interface AdaptiveRounds {
  /** What the rounds may add, by reserve name, for the ETA. */
  reserves: Record<string, Reserve>;
  /** The runner's `more` for latency cells, or undefined when nothing may be added. */
  moreLatency: (() => LatencyTrial[]) | undefined;
  /** The runner's `more` for memory cells, or undefined when nothing may be added. */
  moreMemory: (() => MemoryTrial[]) | undefined;
  /** What the rounds did, into results.json, around the run's load (the key order results.json keeps). */
  record(results: Results, load: Results["load"]): void;
}

export function createAdaptiveRounds(o: {
  config: BenchConfig;
  /** Variants measured against each other (the baseline first). */
  names: readonly string[];
  /** Every variant of a round (the A/A copy included). */
  variants: readonly string[];
  cases: BenchConfig["latency"]["cases"];
  cells: readonly MemoryCell[];
  results: () => Results;
  progress: Progress;
}): AdaptiveRounds {
  const { run, memory, latency, guard } = o.config;
  const now = () => performance.now();
  const common = { variants: o.variants, cells: o.cells, results: o.results, now };
  const autoSeconds = guard && o.names.length >= 2 ? run.autoSampleSeconds : null;
  const auto =
    autoSeconds !== null && guard
      ? createAutoRounds({ ...common, budgetSeconds: autoSeconds, guard, cases: o.cases })
      : null;
  // Sequential memory rounds: cells whose headline verdicts are not yet clear get rounds up to 8 pairs.
  const seqSeconds = memory.sequentialSeconds;
  const rounds =
    seqSeconds > 0 && memory.enabled && o.names.length >= 2
      ? createMemoryRounds({ ...common, budgetSeconds: seqSeconds })
      : null;
  // Sequential latency rounds: cases whose headline latency verdicts are not yet answered get rounds.
  const latSeconds = latency.sequentialSeconds;
  const latencyRounds =
    latSeconds > 0 && latency.enabled && o.names.length >= 2
      ? createLatencyRounds({ ...common, budgetSeconds: latSeconds, cases: o.cases })
      : null;
  const reserves: Record<string, Reserve> = {
    ...(auto && autoSeconds !== null
      ? {
          "auto-sampling": autoRoundsReserve({
            budgetSeconds: autoSeconds,
            variants: o.variants,
            cases: o.cases,
            cells: memory.enabled ? o.cells : [],
          }),
        }
      : {}),
    ...(rounds
      ? {
          "memory rounds": memoryRoundsReserve({
            budgetSeconds: seqSeconds,
            variants: o.variants,
            cells: o.cells,
            plannedTrials: memory.trials,
          }),
        }
      : {}),
    ...(latencyRounds
      ? {
          "latency rounds": latencyRoundsReserve({
            budgetSeconds: latSeconds,
            variants: o.variants,
            cases: o.cases,
            plannedTrials: latency.trials,
          }),
        }
      : {}),
  };
  const grown = <T extends object>(trials: T[], reserve: string): T[] => {
    o.progress.grow(trials.length, trials.map(trialKind), reserve);
    return trials;
  };
  const moreMemory = (): MemoryTrial[] => {
    const guarded = auto?.moreMemory() ?? [];
    if (guarded.length > 0) return grown(guarded, "auto-sampling");
    const next = grown(rounds?.more() ?? [], "memory rounds");
    if (next.length === 0) for (const name of Object.keys(reserves)) o.progress.settle(name);
    return next;
  };
  const moreLatency = (): LatencyTrial[] => {
    const guarded = auto?.moreLatency() ?? [];
    if (guarded.length > 0) return grown(guarded, "auto-sampling");
    const next = grown(latencyRounds?.more() ?? [], "latency rounds");
    if (next.length === 0) {
      o.progress.settle("latency rounds");
      if (!memory.enabled) o.progress.settle("auto-sampling");
    }
    return next;
  };
  return {
    reserves,
    moreLatency: auto || latencyRounds ? moreLatency : undefined,
    moreMemory: auto || rounds ? moreMemory : undefined,
    record: (results, load) => {
      if (auto) results.autoSample = auto.info();
      results.load = load;
      if (rounds) results.memoryRounds = rounds.info();
      if (latencyRounds) results.latencyRounds = latencyRounds.info();
    },
  };
}
