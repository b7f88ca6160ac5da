// The History section of a run's report.md (pure): this run against the recorded series on main, per
// metric and cell that has one: where the run's baseline stands in the series (its ratio to the
// series' anchor), what that makes of the candidate (baseline's ratio × this run's paired ratio),
// main's latest point and the spread of its recent points, and the series' last change point.
import { mdTable, mdText } from "./markup.js";

export interface HistoryRow {
  cell: string;
  metric: string;
  /** This run's paired ratio candidate/baseline. */
  ratio: number | null;
  /** The baseline's commit in the series (its ratio to the anchor), when it was recorded. */
  baseToAnchor: number | null;
  /** main's latest recorded point and the range of its last RECENT points. */
  latest: { commit: string; ratio: number } | null;
  recent: { low: number; high: number; points: number } | null;
  /** The series' last change point, as detect stored it. */
  lastChange: { commit: string; before: number; after: number } | null;
}

export interface HistoryContext {
  store: string;
  branch: string;
  anchor: string;
  rows: HistoryRow[];
}

const short = (sha: string) => sha.slice(0, 12);
const x = (v: number | null) => (v === null ? "–" : v.toFixed(3));

/** The section's Markdown lines; none when no cell of the run has a series. */
export function historySectionMarkdown(h: HistoryContext | null): string[] {
  if (!h || h.rows.length === 0) return [];
  const rows = h.rows.map((r) => [
    r.cell,
    r.metric,
    x(r.ratio),
    x(r.baseToAnchor),
    r.baseToAnchor !== null && r.ratio !== null ? x(r.baseToAnchor * r.ratio) : "–",
    r.latest ? `${x(r.latest.ratio)} (${short(r.latest.commit)})` : "–",
    r.recent ? `${x(r.recent.low)}–${x(r.recent.high)} (${r.recent.points})` : "–",
    r.lastChange ? `${short(r.lastChange.commit)}: ${x(r.lastChange.before)} → ${x(r.lastChange.after)}` : "none",
  ]);
  return [
    "## History",
    "",
    mdText(
      `This run against the series on ${h.branch} in ${h.store}, ratios to its anchor ${short(h.anchor)}. The candidate's place is the baseline's recorded ratio times this run's paired ratio.`,
    ),
    "",
    ...mdTable(
      [
        "cell",
        "metric",
        "this run",
        "baseline in series",
        "candidate (implied)",
        `${h.branch} latest`,
        "recent range (points)",
        "last change point",
      ],
      rows,
    ),
    "",
  ];
}
