// One cell's outcome of a paired comparison (pure): DIFFERENT when the ratio's interval excludes 1 and
// the change reaches the practical floor, SAME when the whole interval lies inside the floor, else
// UNKNOWN (more pairs may decide). A verdict that carries its outcome is taken at its word; one from
// before outcomes existed is read from its interval, its verdict and, when known, the floor's width.
import { minEffectFromConfig } from "../results/metric-floor.js";
import { METRICS, practicalTolerance } from "../results/metric-names.js";
import { OUTCOMES, type Outcome } from "../results/outcome.js";
import type { Results } from "../results/schema.js";
import type { CellVerdict } from "../results/verdict-record.js";
import type { CellOutcome } from "../store/bisections.js";
import { cellPairs, guardFromConfig, verdictsOf } from "./cells.js";

type Judged = Pick<CellVerdict, "verdict" | "median" | "ciLow" | "ciHigh" | "aaLow" | "aaHigh"> & {
  outcome?: string | null;
};

/** Verdicts that cannot say DIFFERENT: nothing measured, too few pairs, inside the noise. */
const UNDECIDED = new Set(["missing", "too-few-pairs", "noise", "not-judged"]);

/**
 * The verdict's outcome. `tolerance`: the widest |ratio - 1| still inside the practical floor
 * (practical.ts floorTolerance) when the caller knows the cell's baseline; without it the verdict's
 * own reading of the floor (no-practical-change) stands in.
 */
export function outcomeOf(v: Judged, tolerance?: number): Outcome {
  if (typeof v.outcome === "string" && (OUTCOMES as readonly string[]).includes(v.outcome)) return v.outcome as Outcome;
  const { median, ciLow, ciHigh } = v;
  if (v.verdict === "missing" || v.verdict === "too-few-pairs" || v.verdict === "not-judged") return "UNKNOWN";
  if (v.verdict === "no-practical-change") return "SAME";
  if (median === null || ciLow === null || ciHigh === null) return "UNKNOWN";
  if (tolerance !== undefined && Math.abs(ciLow - 1) < tolerance && Math.abs(ciHigh - 1) < tolerance) return "SAME";
  const excludesOne = ciLow > 1 || ciHigh < 1;
  const inBand = v.aaLow !== null && v.aaHigh !== null && median >= v.aaLow && median <= v.aaHigh;
  const reaches = tolerance === undefined ? !UNDECIDED.has(v.verdict) : Math.abs(median - 1) >= tolerance;
  return excludesOne && reaches && !inBand ? "DIFFERENT" : "UNKNOWN";
}

/**
 * A comparison's outcome over the cells that decide it: DIFFERENT as soon as one differs (the builds
 * differ), SAME when every one is the same, else UNKNOWN. No cells: UNKNOWN (nothing decided).
 */
export function combinedOutcome(outcomes: readonly Outcome[]): Outcome {
  if (outcomes.includes("DIFFERENT")) return "DIFFERENT";
  if (outcomes.length > 0 && outcomes.every((o) => o === "SAME")) return "SAME";
  return "UNKNOWN";
}

/** The pairs of the next try of an UNKNOWN comparison: doubled, or null once past the cap. */
export function nextPairs(pairs: number, cap: number): number | null {
  const next = pairs * 2;
  return next <= cap ? next : null;
}

/** A cell and metric a comparison is decided on. */
export interface Focus {
  cell: string;
  metric: string;
}

/**
 * Every judged cell's outcome in a run (only the `focus` cells when given), with the floor the run
 * was configured with and each cell's baseline median: the run's verdicts, or those judged now. A cell
 * whose floor reaches its baseline is not judged and decides nothing (a floor set above a figure, as
 * `--min-effect 1000ms` does for every timer, leaves it out of the comparison).
 */
export function cellOutcomes(results: Results, focus: readonly Focus[] | null = null): CellOutcome[] {
  const config = results.run.config ?? {};
  const floor = minEffectFromConfig(config);
  const kept = results.verdicts?.filter((v): v is CellVerdict => (METRICS as readonly string[]).includes(v.metric));
  const verdicts = kept && kept.length > 0 ? kept : verdictsOf(results, guardFromConfig(config), floor);
  const wanted = (v: CellVerdict) => focus === null || focus.some((f) => f.cell === v.cell && f.metric === v.metric);
  return verdicts
    .filter((v) => wanted(v) && v.verdict !== "not-judged")
    .map((v) => {
      const { baselineMedian } = cellPairs(results, v.metric, v.cell);
      const tolerance = practicalTolerance(v.metric, baselineMedian, floor) ?? undefined;
      return {
        cell: v.cell,
        metric: v.metric,
        outcome: outcomeOf(v, tolerance),
        ratio: v.median,
        low: v.ciLow,
        high: v.ciHigh,
        pairs: v.pairs,
      };
    });
}
