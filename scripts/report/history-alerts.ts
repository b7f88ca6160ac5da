// A detection's alerts as the terminal and Markdown show them (pure): one alert per suspect commit,
// each series that changed there on a line of its own with its levels and p-value. Commit subjects
// and branch names are foreign text: escaped for the terminal, inert in Markdown.
import { escapeText } from "../util/escape.js";
import type { Detection } from "../verdicts/history-series.js";
import { mdTable, mdText } from "./markup.js";

const short = (sha: string) => sha.slice(0, 12);
const percent = (magnitude: number) => `${magnitude >= 0 ? "+" : ""}${((Math.exp(magnitude) - 1) * 100).toFixed(1)}%`;

/** "12 series, 2 alerts: 1 regression (open), 1 improvement". */
export function detectionHeadline(d: Detection): string {
  const regressions = d.alerts.filter((a) => a.direction === "regression");
  const open = regressions.filter((a) => a.triage === null).length;
  const n = d.alerts.length;
  return `${d.series.length} series, ${n} alert${n === 1 ? "" : "s"}: ${regressions.length} regression${regressions.length === 1 ? "" : "s"} (${open} open), ${n - regressions.length} improvement${n - regressions.length === 1 ? "" : "s"}`;
}

function subjectOf(d: Detection, commit: string): string | null {
  for (const s of d.series) for (const p of s.series.points) if (p.commit === commit && p.subject) return p.subject;
  return null;
}

/** The alerts as terminal lines. */
export function alertLines(d: Detection): string[] {
  const lines = [detectionHeadline(d)];
  for (const a of d.alerts) {
    const subject = subjectOf(d, a.commit);
    const triage = a.triage ? ` [${a.triage.state}${a.triage.note ? `: ${escapeText(a.triage.note)}` : ""}]` : "";
    lines.push(
      `${short(a.commit)} ${a.direction} on ${escapeText(a.branch)} (testbed ${a.testbedId}; last stable ${short(a.stableCommit)})${triage}${subject ? `: ${escapeText(subject)}` : ""}`,
    );
    for (const c of a.changes) {
      lines.push(
        `  ${escapeText(c.cell)} ${c.metric}: ${c.before.toFixed(3)} → ${c.after.toFixed(3)}× anchor (${percent(c.magnitude)}, p ${c.pValue.toFixed(3)})`,
      );
    }
  }
  return lines;
}

/** The alerts as Markdown (the step summary): a headline and one table row per changed series. */
export function alertsMarkdown(d: Detection): string {
  const rows = d.alerts.flatMap((a) =>
    a.changes.map((c) => [
      short(a.commit),
      a.direction,
      a.triage?.state ?? "open",
      c.cell,
      c.metric,
      `${c.before.toFixed(3)} → ${c.after.toFixed(3)}`,
      percent(c.magnitude),
      c.pValue.toFixed(3),
    ]),
  );
  return [
    "### catchup-bench history",
    "",
    mdText(detectionHeadline(d)),
    "",
    ...(rows.length > 0
      ? mdTable(["commit", "alert", "triage", "cell", "metric", "ratio to anchor", "change", "p"], rows)
      : ["No change points."]),
    "",
  ].join("\n");
}
