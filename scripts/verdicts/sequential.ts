// The sequential rule (pure): a cell may be judged at a fixed schedule of looks, 8, 12 and 16 pairs,
// and stops at the first look where every metric that ends its rounds (those the metric table marks
// stopsRounds, and every guarded one) is DIFFERENT or SAME; at 16 pairs, or when the time budget is spent, it stops
// and what is still open is UNKNOWN. Peeking at the data inflates false alarms unless the rule pays for
// it: each look judges on the bootstrap interval at level 1 - 0.05/3 (Bonferroni over the three looks),
// so the chance that any look calls DIFFERENT where nothing changed stays at most 5% per cell. A stop on
// SAME cannot raise that chance (it ends a cell without a DIFFERENT), so the memory cells' early
// equivalence sign test (memory-rounds.ts) keeps its own looks. Nor can a stop for futility: a cell
// whose every open metric could reach neither outcome by the cap ends UNKNOWN at its look. bench:power
// checks the rates by simulation (selfbench/power-sim.ts).
import { METRICS, type Metric, metricOf } from "../results/metric-names.js";
import type { CellVerdict } from "../results/verdict-record.js";
import { normalCdf, normalQuantile } from "../util/stats.js";

/** The pair counts at which the rule judges a cell. */
export const LOOKS: readonly number[] = [8, 12, 16];
/** The most pairs a cell gets under the rule. */
export const SEQUENTIAL_CAP = LOOKS[LOOKS.length - 1] as number;
/** The false-alarm rate the rule keeps per cell over all its looks. */
export const FAMILY_ALPHA = 0.05;
/** Each look's interval level: 1 - 0.05/3 = 98.33%. */
export const LOOK_LEVEL = 1 - FAMILY_ALPHA / LOOKS.length;

export type Matrix = "latency" | "memory";

/** The matrix a paired metric is measured in. */
export function matrixOf(metric: Metric): Matrix {
  return metricOf(metric).matrix as Matrix;
}

/** Whether a run's matrix ran under the rule, from its recorded config (older runs: neither). */
export function underRule(config: Record<string, unknown>, matrix: Matrix): boolean {
  const seconds = config[matrix === "latency" ? "latencySequentialSeconds" : "memorySequentialSeconds"];
  return typeof seconds === "number" && seconds > 0;
}

/** The metrics whose outcomes end a cell's rounds: those the metric table marks stopsRounds, and every guarded one. */
export function stoppingMetrics(matrix: Matrix, guarded: readonly string[] = []): Metric[] {
  return METRICS.filter((m) => matrixOf(m) === matrix && (metricOf(m).stopsRounds === true || guarded.includes(m)));
}

/** Below this chance of an answer by the cap, a cell's open metric is out of reach (stopped for futility). */
export const FUTILITY_CHANCE = 0.1;

/**
 * Pure: the chance that an UNKNOWN unguarded verdict is DIFFERENT or SAME at the cap, were its spread and
 * median to hold (conditional power at the current estimate); 1 where it cannot be told. In log ratios,
 * from the look's interval of half-width h at n pairs: the per-pair sd σ = h √n / z, the cap's half-width
 * h_c = h √(n / cap). SAME needs h_c under the floor's log(1 + t): if it is, the cell is not stopped.
 * DIFFERENT needs the cap's median beyond h_c; that median is drawn about today's m with sd
 * σ √(cap − n) / cap (the pairs still to come), so the chance is Φ((|m| − h_c)/s) + Φ((−|m| − h_c)/s).
 * It leaves out the A/A band, which would only make DIFFERENT harder: the stop errs towards more pairs.
 */
export function chanceByCap(v: CellVerdict, tolerance: number): number {
  const { decision, median, pairs } = v;
  // A floor that reaches the baseline stays there: more pairs cannot judge the cell.
  if (v.verdict === "not-judged") return 0;
  if (v.outcome !== "UNKNOWN" || v.guarded || !decision || median === null || median <= 0 || pairs < 3) return 1;
  if (pairs >= SEQUENTIAL_CAP || !(decision.low > 0 && decision.high > decision.low)) return 1;
  const half = (Math.log(decision.high) - Math.log(decision.low)) / 2;
  const capHalf = half * Math.sqrt(pairs / SEQUENTIAL_CAP);
  if (capHalf < Math.log(1 + tolerance)) return 1;
  const sd = (half * Math.sqrt(pairs)) / normalQuantile(1 - (1 - decision.level) / 2);
  const s = (sd * Math.sqrt(SEQUENTIAL_CAP - pairs)) / SEQUENTIAL_CAP;
  const m = Math.abs(Math.log(median));
  return normalCdf((m - capHalf) / s) + normalCdf((-m - capHalf) / s);
}

/** Why a cell under the rule gets no more rounds, or "more". */
export type SequentialNeed = "more" | "decided" | "futile" | "pairs" | "missing";

/**
 * Pure: a cell's need from its verdicts of the stopping metrics (all judged on the same rounds), with
 * each metric's practical floor tolerance (`toleranceOf`) for the futility stop.
 */
export function sequentialNeed(
  verdicts: readonly CellVerdict[],
  toleranceOf: (v: CellVerdict) => number,
): SequentialNeed {
  // A failed pair is not brought back by more rounds (the verdict stays "missing").
  if (verdicts.some((v) => v.verdict === "missing")) return "missing";
  const pairs = Math.min(...verdicts.map((v) => v.pairs));
  if (pairs >= SEQUENTIAL_CAP) return "pairs";
  if (!LOOKS.includes(pairs)) return "more";
  const answered = (v: CellVerdict) => v.outcome !== "UNKNOWN" && !v.undecided;
  if (verdicts.every(answered)) return "decided";
  const futile = (v: CellVerdict) => answered(v) || chanceByCap(v, toleranceOf(v)) < FUTILITY_CHANCE;
  return verdicts.every(futile) ? "futile" : "more";
}
