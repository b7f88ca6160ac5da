// Verdict wording, one place for report.md, report.html and the summary: a verdict's name and word,
// when it is marked indicative, its ratio and interval, the guard's line, the adaptive rounds' lines
// and the note that explains them (pure).
import { cellName } from "../results/cell-names.js";
import { metricOf } from "../results/metric-names.js";
import type { MemoryRoundsWhy } from "../results/schema.js";
import { type CellVerdict, isIndicative } from "../results/verdict-record.js";
import { ratio } from "../util/format.js";
import { unanimousSignP } from "../util/stats.js";
import { MIN_PAIRS } from "../verdicts/cells.js";
import { FUTILITY_CHANCE, stoppingMetrics } from "../verdicts/sequential.js";
import type { ReportModel } from "./model.js";

/** "0.596 (0.580–0.612)", ", indicative" below 8 pairs, "(1 pair, indicative)" without an interval. */
export function ratioWithInterval(v: CellVerdict | undefined, verdictBeside = false): string {
  if (!v || v.median === null) return "n/a";
  // Beside its verdict word, which then carries the row's one "(indicative)".
  const mark = v.indicative && !(verdictBeside && markedIndicative(v)) ? ", indicative" : "";
  if (v.ciLow === null || v.ciHigh === null)
    return `${ratio(v.median)} (${v.pairs} pair${v.pairs === 1 ? "" : "s"}${mark})`;
  return `${ratio(v.median)} (${ratio(v.ciLow)}–${ratio(v.ciHigh)}${mark})`;
}

/**
 * A verdict in a few words, as the headline tables show it: the outcome, what it is and the median
 * paired ratio ("DIFFERENT: lower 0.596", "SAME 0.998"); "(indicative)" where isIndicative says so.
 * A guarded cell, or one from before outcomes, shows its verdict's name.
 */
export function verdictWord(v: CellVerdict | undefined): string {
  if (!v) return "n/a";
  const mark = markedIndicative(v) ? " (indicative)" : "";
  if (!hasOutcome(v)) return `${verdictName(v)}${mark}`;
  if (v.verdict === "not-judged") return "UNKNOWN: not judged";
  const size = v.median === null ? "" : ` ${ratio(v.median)}`;
  if (v.outcome === "DIFFERENT") return `DIFFERENT: ${v.verdict}${size}${mark}`;
  return `${v.outcome}${size}${mark}`;
}

/** An unguarded verdict that carries an outcome (results from before outcomes have none). */
function hasOutcome(v: CellVerdict): boolean {
  return !v.guarded && v.outcome !== undefined;
}

/** What a verdict says, after its outcome: "no practical change", "no change told from noise". */
function outcomeName(v: CellVerdict): string {
  if (v.verdict === "no-practical-change") return "no practical change";
  if (v.verdict === "not-judged") return "not judged";
  if (v.verdict === "noise")
    return /^interval .* inside the A\/A band/.test(v.reason) ? "no change told from noise" : "not told from noise";
  return v.verdict;
}

/**
 * Whether a verdict is shown with "indicative": one resting on fewer than 8 pairs that no sign test
 * decided; not "missing", "too few pairs" or a cell too small to rank at all, which claim nothing.
 */
export function markedIndicative(v: CellVerdict): boolean {
  const unranked =
    v.verdict === "missing" ||
    v.verdict === "too-few-pairs" ||
    v.verdict === "not-judged" ||
    (v.verdict === "noise" && v.pairs < MIN_PAIRS);
  return isIndicative(v) && !unranked;
}

export function verdictName(v: Pick<CellVerdict, "verdict" | "expected">): string {
  switch (v.verdict) {
    case "no-practical-change":
      return "no practical change";
    case "too-few-pairs":
      return "too few pairs";
    case "not-judged":
      return "not judged";
    case "higher":
      return v.expected ? "higher (expected)" : "higher";
    case "pass":
    case "fail":
      return v.verdict.toUpperCase();
    default:
      return v.verdict;
  }
}

/**
 * "−4.0% / +4.1%": the smallest change down and up a cell could have ranked (the detectable factor d
 * is symmetric on the log scale: ÷d or ×d), "÷2.5 / ×2.5" past doubling, "n/a" without an interval.
 */
export function detectableText(d: number | null, indicative = false): string {
  if (d === null) return "n/a";
  const text =
    d >= 2
      ? `÷${d.toFixed(1)} / ×${d.toFixed(1)}`
      : `−${((1 - 1 / d) * 100).toFixed(1)}% / +${((d - 1) * 100).toFixed(1)}%`;
  return indicative ? `${text} (indicative)` : text;
}

/**
 * The verdict cell: the outcome, what it is, its size and why. DIFFERENT gives the median paired
 * ratio; SAME the size under the floor or the interval inside the A/A band; UNKNOWN the smallest
 * change the cell could have seen at its pairs. A guarded cell: its guard verdict and why.
 */
export function verdictText(v: CellVerdict): string {
  const mark = markedIndicative(v) ? " (indicative)" : "";
  if (!hasOutcome(v)) return `${verdictName(v)} (${mark ? "indicative: " : ""}${v.reason})`;
  if (v.outcome === "DIFFERENT") {
    const size = v.median === null ? "" : ` ${ratio(v.median)}`;
    return `DIFFERENT${mark}: ${v.verdict}${size}, ${v.reason}`;
  }
  if (v.outcome === "SAME") return `SAME${mark}: ${outcomeName(v)}, ${v.reason}`;
  // Not judged: no pair count would judge it, so what it could have seen says nothing.
  if (v.verdict === "not-judged") return `UNKNOWN${mark}: not judged: ${v.reason}`;
  const could = v.detectable === null ? "" : `; could have seen ${detectableText(v.detectable, false)}`;
  return `UNKNOWN${mark}: ${outcomeName(v)}, ${v.reason}${could}`;
}

/** A cell's interval, marked "indicative" below RELIABLE_PAIRS pairs. */
export function intervalCell(v: CellVerdict): string {
  if (v.ciLow === null || v.ciHigh === null) return v.pairs === 1 ? "1 pair, no interval" : "n/a";
  const text = `${ratio(v.ciLow)}–${ratio(v.ciHigh)}`;
  return v.indicative ? `${text} (indicative)` : text;
}

/** One line for the top of the report: the guard's decision, per cell. */
export function guardSummary(model: ReportModel): string | null {
  if (!model.guard) return null;
  if (!model.roles) return "Guard: a single target, nothing to compare: not judged.";
  const guarded: Array<{ metric: string; cell: string; verdict: string; undecided: boolean }> = [
    ...model.metrics.flatMap((m) => m.cells.filter((v) => v.guarded)),
    ...model.stormVerdicts.filter((v) => v.guarded),
  ];
  const failed = guarded.filter((v) => v.verdict === "fail").map((v) => `${v.metric} ${cellName(v.cell)}`);
  const open = guarded
    .filter((v) => v.verdict === "missing" || v.undecided)
    .map((v) => `${v.metric} ${cellName(v.cell)}`);
  const rule = `${model.guard.confidence ? "interval low" : "median paired ratio"} per cell against ceiling ${model.guard.ceiling}`;
  if (failed.length > 0) {
    const also = open.length > 0 ? `; no verdict for ${open.join("; ")}` : "";
    return `Guard (${rule}): FAIL in ${failed.join("; ")}${also}.`;
  }
  if (open.length > 0) return `Guard (${rule}): NO VERDICT for ${open.join("; ")}.`;
  return `Guard (${rule}): PASS in all ${guarded.length} guarded cells.`;
}

/** The auto-sampling summary: budget, time used, rounds per resampled cell. */
export function autoSampleText(model: ReportModel): string | null {
  const a = model.autoSample;
  if (!a) return null;
  const cells =
    a.cells.length === 0
      ? "no guarded cell needed more rounds"
      : a.cells
          .map(
            (c) =>
              `${cellName(c.cell)} (${c.matrix}): ${c.rounds} rounds, ${c.decided ? "decided" : "still undecided"}`,
          )
          .join("; ");
  return `Auto-sampling: budget ${a.budgetSeconds} s, used ${a.spentSeconds.toFixed(1)} s; ${cells}.`;
}

const ROUNDS_WHY: Record<MemoryRoundsWhy, (pairs: number) => string> = {
  pairs: () => "reached",
  decided: () => "answered: every metric it stops on DIFFERENT or SAME",
  futile: () =>
    `out of reach: each metric it stops on answered or under a ${FUTILITY_CHANCE * 100}% chance of DIFFERENT or SAME by the cap at its spread and median`,
  // Fewer pairs sufficed: the sign test's exact p, not the (undercovering) interval, is the evidence.
  clear: (n) =>
    `sufficed: all ${n} ratios beyond the A/A band and 1.0 on one side (sign test p = ${unanimousSignP(n).toFixed(3)})`,
  // Two one-sided sign tests (median above 1 - t, below 1 + t), each p = 2^-n.
  equivalent: (n) =>
    `sufficed: all ${n} ratios within the practical floor (equivalence sign tests p = ${(unanimousSignP(n) / 2).toFixed(3)})`,
  budget: () => "budget spent",
  missing: () => "a pair missing",
};

/** Sequential memory rounds: per cell, the pairs the verdicts it stops on rest on and why no more. */
export function memoryRoundsText(model: ReportModel): string | null {
  const m = model.memoryRounds;
  if (!m) return null;
  const cells = m.cells
    .map((c) => `${cellName(c.cell)}: ${c.pairs} pairs, ${ROUNDS_WHY[c.why]?.(c.pairs) ?? c.why}`)
    .join("; ");
  const metrics = stoppingMetrics("memory")
    .map((k) => metricOf(k).header)
    .join(", ");
  return `Memory rounds (${metrics}; up to ${m.targetPairs} pairs per cell): budget ${m.budgetSeconds} s, used ${m.spentSeconds.toFixed(1)} s; ${cells}.`;
}

export const VERDICT_NOTE =
  "Each cell is judged on its own: the median of its paired ratios candidate/baseline (trial i of one with trial i of the other, same round), with a seeded, smoothed percentile-bootstrap 95% interval. " +
  "Intervals from fewer than 8 pairs are marked indicative: they cover the true ratio less often than 95% of the time (about 85% at 3 pairs), so read them as a hint, not a bound; so are the verdicts resting on them, unless an exact sign test of the sequential memory rounds decided the verdict. " +
  "The A/A band is the baseline measured against a second copy of itself in the same rounds; a ratio inside it is noise and is not ranked. " +
  'The smallest detectable change is the change this cell could have told from no change at its noise and pair count (80% power, 5% two-sided); a verdict of "noise" says nothing about changes smaller than that. ' +
  "The detectable change is shown both ways (−x% / +y%: a ratio of 1/d or d), marked indicative like the interval it comes from. " +
  "Unguarded verdicts: lower, higher (or higher, expected: the first chunk carries the whole catch-up when the candidate sends fewer chunks), no practical change (the median and its whole interval within the metric's practical floor), noise (interval spans 1.0, inside the A/A band, or fewer than 3 pairs), missing (fewer ok pairs than planned), not judged (the metric's floor reaches the baseline's median, so no lower figure could leave it). " +
  "Guarded: pass, fail, noise, missing, too few pairs (fewer than --guard-min-pairs: no PASS or FAIL). Details: docs/statistics.md.";
