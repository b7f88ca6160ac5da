// A verdict as results.json keeps it (verdicts/ computes them; report/ renders them).
import type { Metric, MetricUnit, StormMetric } from "./metric-names.js";
import type { Outcome } from "./outcome.js";

/**
 * The interval a cell under the sequential rule is judged on: the bootstrap interval at the per-look
 * level (1 - 0.05/looks, Bonferroni over the rule's looks; verdicts/sequential.ts), beside the 95% one.
 */
export interface DecisionInterval {
  level: number;
  low: number;
  high: number;
}

export type GuardedVerdict = "pass" | "fail" | "noise" | "missing" | "too-few-pairs";
/** `not-judged`: the metric's practical floor reaches the cell's baseline, so no lower figure could leave it. */
export type OpenVerdict = "lower" | "higher" | "noise" | "missing" | "no-practical-change" | "not-judged";
export type CellVerdictName = GuardedVerdict | OpenVerdict;

/**
 * One metric in one cell, as judged when the run finished: what results.json keeps under `verdicts`
 * and the reports render. Ratios are candidate/baseline; the A/A band is the baseline against its
 * interleaved second copy. `verdict`: pass|fail|noise|missing for a guarded metric,
 * lower|higher|noise|missing for the others.
 */
export interface CellVerdict {
  metric: Metric;
  /** The metric's unit on disk (its descriptor's), in which its practical floor and reason are stated. */
  unit: MetricUnit;
  /** The case name for latency ("resume-many"), SCRIPTBYTESxCLIENTS/MODE for memory ("8192x4/memory"). */
  cell: string;
  pairs: number;
  plannedPairs: number;
  median: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  aaLow: number | null;
  aaHigh: number | null;
  verdict: CellVerdictName;
  guarded: boolean;
  /** Smallest change (as a ratio above 1, e.g. 1.08 = 8%) this cell could have ranked; null without an interval. */
  detectable: number | null;
  /** Fewer than RELIABLE_PAIRS pairs: the interval undercovers, read it as indicative only. */
  indicative: boolean;
  /**
   * Fewer than RELIABLE_PAIRS pairs, but the verdict rests on the exact sign test that stopped the
   * cell's sequential memory rounds (peak heap and peak RSS only): "clear", every ratio beyond the A/A
   * band on one side (higher or lower); "equivalent", every ratio within the practical floor.
   */
  signTest?: "clear" | "equivalent";
  /**
   * DIFFERENT (the interval excludes 1.0 and the median leaves the practical floor and the A/A band),
   * SAME (the interval lies inside them), UNKNOWN (neither: `detectable` is the smallest change the
   * cell could have seen at its pairs). Older results lack it (recomputed when re-judged).
   */
  outcome: Outcome;
  /** The sequential rule's interval, when the cell's matrix ran under it (absent: judged on the 95% one). */
  decision?: DecisionInterval;
  /**
   * No answer yet: a guarded cell above the ceiling inside its A/A band or with too few pairs (no
   * PASS or FAIL); an unguarded cell whose outcome is UNKNOWN or whose pairs are missing.
   */
  undecided: boolean;
  /** A change the change under test is expected to make (fewer chunks: a later first chunk), not a regression. */
  expected?: boolean;
  /** Why the verdict, in a few words. */
  reason: string;
}

/** Whether a verdict is to be read as a hint: fewer than 8 pairs and not decided by a sign test. */
export function isIndicative(v: Pick<CellVerdict, "indicative" | "signTest">): boolean {
  return v.indicative && v.signTest === undefined;
}

/** A pair that does not count, and why ("trial 2: legacy 499/500 ok (1 upgrade-refused)"). */
export interface MissingPair {
  trial: number;
  reason: string;
}

/** One storm figure in one storm cell, judged like a memory cell; `missing` names the pairs that did not count. */
export interface StormVerdict extends Omit<CellVerdict, "metric"> {
  metric: StormMetric;
  missing: MissingPair[];
}
