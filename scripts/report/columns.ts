// A table as a list of columns, in the manner of tachometer's Dimension: each column's header, how a
// row shows it, and its table config; one list drives report.md's table and report.html's alike. A
// metric's columns take their header, scale and headline place from the metric table
// (results/metric-names.ts), so a new metric needs no column code (pure).
import { figureText, inHeadline, type JudgedMetric, metricOf } from "../results/metric-names.js";
import { arrow } from "../util/format.js";

/** A figure of the baseline and of the candidate (the model's Pair; declared here so markup can use Cells). */
type Pair<T> = { baseline: T; candidate: T };

export interface Column<R> {
  header: string;
  cell: (row: R) => string;
  /** Shown only when some row records it (a figure that older results lack). */
  recorded?: (row: R) => boolean;
  /** A figure outside the summary's headline: report.md leaves such columns out first when it must shorten. */
  outsideHeadline?: boolean;
  /** What it shows, one sentence for the note under the table ("Peak heap: the server's …"). */
  note?: string;
  /** A condition rather than a result: when every row shows the same value it moves to the fixed table. */
  fixable?: boolean;
}

/** A table's header and cells as text, shared by report.md and report.html (each renders them inert). */
export interface Cells {
  header: string[];
  rows: string[][];
  /** The fixable columns whose value is the same in every row: their headers and that one row of values. */
  fixed?: { header: string[]; rows: [string[]] };
}

/**
 * The table of `rows` under `columns`: a column no row records is left out, and with `headlineOnly`
 * so is every column outside the headline; a fixable column with one value in every row (of two or
 * more) moves to the small table of fixed conditions.
 */
export function tableOf<R>(columns: readonly Column<R>[], rows: readonly R[], headlineOnly = false): Cells {
  const shown = shownColumns(columns, rows, headlineOnly);
  const values = (c: Column<R>) => new Set(rows.map((r) => c.cell(r)));
  const fixed = rows.length > 1 ? shown.filter((c) => c.fixable && values(c).size === 1) : [];
  const varying = shown.filter((c) => !fixed.includes(c));
  const first = rows[0] as R;
  return {
    header: varying.map((c) => c.header),
    rows: rows.map((r) => varying.map((c) => c.cell(r))),
    ...(fixed.length > 0
      ? { fixed: { header: fixed.map((c) => c.header), rows: [fixed.map((c) => c.cell(first))] } }
      : {}),
  };
}

function shownColumns<R>(columns: readonly Column<R>[], rows: readonly R[], headlineOnly: boolean): Column<R>[] {
  return columns.filter((c) => (!c.recorded || rows.some(c.recorded)) && !(headlineOnly && c.outsideHeadline));
}

/** The headers of the columns `tableOf` leaves out with `headlineOnly` (those some row records). */
export function outsideHeadline<R>(columns: readonly Column<R>[], rows: readonly R[]): string[] {
  return columns.filter((c) => c.outsideHeadline && (!c.recorded || rows.some(c.recorded))).map((c) => c.header);
}

/** The notes of the columns `tableOf` shows, in column order: the sentence under the table. */
export function tableNote<R>(columns: readonly Column<R>[], rows: readonly R[], headlineOnly = false): string {
  return shownColumns(columns, rows, headlineOnly)
    .flatMap((c) => (c.note ? [c.note] : []))
    .join(" ");
}

/** "Peak heap: the server's highest heap used, …": a metric's sentence as a column's note. */
export function metricNote(metric: JudgedMetric): string {
  const { header, explains } = metricOf(metric);
  // "From sending …" reads "from sending …" after the header; "UTF-8 bytes …" stays as it is.
  const rest = /^[A-Z][a-z]/.test(explains) ? `${explains.charAt(0).toLowerCase()}${explains.slice(1)}` : explains;
  return `${header.charAt(0).toUpperCase()}${header.slice(1)}: ${rest}`;
}

/** One figure of a pair: "a → b unit" in a comparison, "a unit" for a single target ("n/a" alone). */
export function pairText(single: boolean, a: string, b: string, unit = ""): string {
  if (single) return unit && a !== "n/a" ? `${a} ${unit}` : a;
  return arrow(a, b, unit);
}

/** Whether either variant has the figure. */
export function recordedPair(p: Pair<number | null>): boolean {
  return p.baseline !== null || p.candidate !== null;
}

/**
 * A metric's "baseline → candidate" column (a single target: its own figure) over rows that carry its
 * medians. `header` shapes the metric's header for the table ("acknowledged median"); `unit` is
 * written into each cell when the table's title does not say it. Recent metrics show only where recorded.
 */
export function metricColumn<R, M extends JudgedMetric>(
  metric: M,
  pick: (row: R) => Pair<number | null>,
  table: { single: boolean; header: (h: string) => string; unit?: string },
): Column<R> {
  const d = metricOf(metric);
  return {
    header: table.header(d.header),
    cell: (r) => {
      const p = pick(r);
      return pairText(table.single, figureText(metric, p.baseline), figureText(metric, p.candidate), table.unit);
    },
    ...(d.recent ? { recorded: (r: R) => recordedPair(pick(r)) } : {}),
    ...(inHeadline(metric) ? {} : { outsideHeadline: true }),
    note: metricNote(metric),
  };
}
