// `history regressions --since REF` (pure): the cells a paired run of HEAD against REF found higher,
// beyond 1.0 and the practical floor, and not an expected effect. One paired comparison across the
// whole stretch catches a slow creep (1.00 → 1.04 → 1.08) that no single step shows.
import type { CellVerdict, StormVerdict } from "../results/verdict-record.js";

export interface Regression {
  cell: string;
  metric: string;
  ratio: number;
  low: number | null;
  high: number | null;
  pairs: number;
  reason: string;
}

/** The regressions among a paired run's verdicts (candidate HEAD over baseline REF). */
export function regressionsOf(verdicts: readonly (CellVerdict | StormVerdict)[]): Regression[] {
  return verdicts
    .filter((v) => (v.verdict === "higher" || v.verdict === "fail") && !v.expected && v.median !== null)
    .map((v) => ({
      cell: v.cell,
      metric: v.metric,
      ratio: v.median as number,
      low: v.ciLow,
      high: v.ciHigh,
      pairs: v.pairs,
      reason: v.reason,
    }));
}
