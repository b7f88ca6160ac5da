// Confirmations and bisections as the terminal shows them (pure): the culprit commit with its paired
// ratio and interval per changed metric, the steps taken; the confirmations with the false-alarm rate
// of the change-point detector. Commit subjects are foreign text: escaped.
import type { Outcome } from "../results/outcome.js";
import type { CellOutcome, ComparisonOutcome } from "../store/bisections.js";
import { escapeText } from "../util/escape.js";

const short = (sha: string) => sha.slice(0, 12);

export interface BisectView {
  good: string;
  bad: string;
  commits: number;
  outcome: Outcome | null;
  culprits: { commit: string; against: string; subject: string | null; cells: CellOutcome[] }[];
  undecided: [string, string][];
  steps: (ComparisonOutcome & { saved: boolean })[];
  stoppedBy: string | null;
}

/** "resume-many completionMs 1.912× [1.804, 2.030], 8 pairs" (the median paired ratio, head/base). */
export function cellText(c: CellOutcome): string {
  const ci = c.low !== null && c.high !== null ? ` [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]` : "";
  return `${escapeText(c.cell)} ${c.metric} ${c.ratio === null ? "no ratio" : `${c.ratio.toFixed(3)}×`}${ci}, ${c.pairs} pairs`;
}

/** The bisection's result and its steps, as lines. */
export function bisectLines(r: BisectView): string[] {
  const lines: string[] = [];
  const range = `${short(r.good)}..${short(r.bad)} (${r.commits} commit${r.commits === 1 ? "" : "s"})`;
  if (r.stoppedBy)
    lines.push(`bisect ${range}: stopped by ${r.stoppedBy} after ${r.steps.length} steps; run it again to resume`);
  else if (r.outcome === "SAME") lines.push(`bisect ${range}: SAME: nothing changed between good and bad, no culprit`);
  else if (r.outcome === "UNKNOWN" && r.culprits.length === 0)
    lines.push(`bisect ${range}: UNKNOWN: undecided at the cap of pairs, no culprit named`);
  for (const c of r.culprits) {
    lines.push(
      `first bad commit ${short(c.commit)}${c.subject ? `: ${escapeText(c.subject)}` : ""} (against ${short(c.against)})`,
    );
    for (const cell of c.cells) lines.push(`  ${cellText(cell)}`);
  }
  for (const [from, to] of r.undecided)
    lines.push(`undecided between ${short(from)} and ${short(to)} at the cap of pairs`);
  lines.push(`steps taken: ${r.steps.length} (median paired ratio head/base with its 95% interval, per deciding cell)`);
  for (const [i, s] of r.steps.entries()) {
    const cells = s.cells.filter((c) => c.outcome === s.outcome || s.outcome === "UNKNOWN");
    lines.push(
      `  ${i + 1}. ${short(s.head)} against ${short(s.base)}: ${s.outcome}, ${s.pairs} pairs${s.saved ? " (saved)" : ""}${cells[0] ? `; ${cellText(cells[0])}` : ""}`,
    );
  }
  return lines;
}

export interface ConfirmationView {
  stable: string;
  commit: string;
  outcome: Outcome;
  pairs: number;
  cells: CellOutcome[];
  culprits?: string[] | null;
}

/** Confirmed, rejected and undecided change points, and the share rejected of those decided. */
export function confirmationTally(list: readonly Pick<ConfirmationView, "outcome">[]) {
  const confirmed = list.filter((c) => c.outcome === "DIFFERENT").length;
  const rejected = list.filter((c) => c.outcome === "SAME").length;
  const decided = confirmed + rejected;
  return {
    confirmed,
    rejected,
    unknown: list.length - decided,
    falseAlarmRate: decided > 0 ? rejected / decided : null,
  };
}

/** "3 change points re-measured: 2 confirmed, 1 rejected (false alarms: 1 of 3 decided, 33%), 0 undecided". */
export function tallyText(list: readonly Pick<ConfirmationView, "outcome">[]): string {
  const t = confirmationTally(list);
  const rate =
    t.falseAlarmRate === null
      ? "no false-alarm rate yet"
      : `false alarms: ${t.rejected} of ${t.confirmed + t.rejected} decided, ${(t.falseAlarmRate * 100).toFixed(0)}%`;
  return `${list.length} change point${list.length === 1 ? "" : "s"} re-measured: ${t.confirmed} confirmed, ${t.rejected} rejected (${rate}), ${t.unknown} undecided`;
}

/** One line per confirmation and its deciding cells. */
export function confirmationLines(list: readonly ConfirmationView[]): string[] {
  const lines = [tallyText(list)];
  for (const c of list) {
    const word =
      c.outcome === "DIFFERENT" ? "confirmed" : c.outcome === "SAME" ? "rejected (a false alarm)" : "undecided";
    const culprits = c.culprits && c.culprits.length > 0 ? `; culprit ${c.culprits.map(short).join(", ")}` : "";
    lines.push(`${short(c.commit)} against ${short(c.stable)}: ${c.outcome}, ${word} at ${c.pairs} pairs${culprits}`);
    for (const cell of c.cells) lines.push(`  ${cell.outcome} ${cellText(cell)}`);
  }
  return lines;
}
