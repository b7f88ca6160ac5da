// The sequential rule (pure): a cell may be judged at a fixed schedule of looks, 8, 12 and 16 pairs,
// and stops at the first look where every metric that ends its rounds (the matrix's headline metrics
// and every guarded one) is DIFFERENT or SAME; at 16 pairs, or when the time budget is spent, it stops
// and what is still open is UNKNOWN. Peeking at the data inflates false alarms unless the rule pays for
// it: each look judges on the bootstrap interval at level 1 - 0.05/3 (Bonferroni over the three looks),
// so the chance that any look calls DIFFERENT where nothing changed stays at most 5% per cell. A stop on
// SAME cannot raise that chance (it ends a cell without a DIFFERENT), so the memory cells' early
// equivalence sign test (memory-rounds.ts) keeps its own looks. bench:power checks both rates by
// simulation (selfbench/power-sim.ts).
import { HEADLINE_MEMORY_METRICS, METRICS, type Metric, metricOf } from "../results/metric-names.js";
import type { CellVerdict } from "../results/verdict-record.js";
import { isLatencyMetric } from "./metrics.js";

/** The pair counts at which the rule judges a cell. */
export const LOOKS: readonly number[] = [8, 12, 16];
/** The most pairs a cell gets under the rule. */
export const SEQUENTIAL_CAP = LOOKS[LOOKS.length - 1] as number;
/** The false-alarm rate the rule keeps per cell over all its looks. */
export const FAMILY_ALPHA = 0.05;
/** Each look's interval level: 1 - 0.05/3 = 98.33%. */
export const LOOK_LEVEL = 1 - FAMILY_ALPHA / LOOKS.length;

export type Matrix = "latency" | "memory";

/** The matrix a metric is measured in. */
export function matrixOf(metric: Metric): Matrix {
  return isLatencyMetric(metric) ? "latency" : "memory";
}

/** Whether a run's matrix ran under the rule, from its recorded config (older runs: neither). */
export function underRule(config: Record<string, unknown>, matrix: Matrix): boolean {
  const seconds = config[matrix === "latency" ? "latencySequentialSeconds" : "memorySequentialSeconds"];
  return typeof seconds === "number" && seconds > 0;
}

/** The metrics whose outcomes end a cell's rounds: the matrix's headline metrics and every guarded one. */
export function stoppingMetrics(matrix: Matrix, guarded: readonly string[] = []): Metric[] {
  const headline =
    matrix === "memory"
      ? HEADLINE_MEMORY_METRICS
      : METRICS.filter((m) => isLatencyMetric(m) && metricOf(m).headline !== undefined);
  return METRICS.filter((m) => matrixOf(m) === matrix && (headline.includes(m) || guarded.includes(m)));
}

/** Why a cell under the rule gets no more rounds, or "more". */
export type SequentialNeed = "more" | "decided" | "pairs" | "missing";

/** Pure: a cell's need from its verdicts of the stopping metrics (all judged on the same rounds). */
export function sequentialNeed(verdicts: readonly CellVerdict[]): SequentialNeed {
  // A failed pair is not brought back by more rounds (the verdict stays "missing").
  if (verdicts.some((v) => v.verdict === "missing")) return "missing";
  const pairs = Math.min(...verdicts.map((v) => v.pairs));
  if (pairs >= SEQUENTIAL_CAP) return "pairs";
  const answered = verdicts.every((v) => v.outcome !== "UNKNOWN" && !v.undecided);
  return LOOKS.includes(pairs) && answered ? "decided" : "more";
}
