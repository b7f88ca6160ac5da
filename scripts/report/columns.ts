// A table as a list of columns, in the manner of tachometer's Dimension: each column's header, how a
// row shows it, and its table config; one list drives report.md's table and report.html's alike. A
// metric's columns take their header, unit, digits and headline place from the metric table
// (results/metric-names.ts), so a new metric needs no column code (pure).
import { type JudgedMetric, metricOf } from "../results/metric-names.js";
import { arrow, mib, ms } from "../util/format.js";
import type { Pair } from "./model.js";

export interface Column<R> {
  header: string;
  cell: (row: R) => string;
  /** Shown only when some row records it (a figure that older results lack). */
  recorded?: (row: R) => boolean;
  /** A figure outside the summary's headline: report.md leaves such columns out first when it must shorten. */
  outsideHeadline?: boolean;
}

/** A table's header and cells as text, shared by report.md and report.html (each renders them inert). */
export interface Cells {
  header: string[];
  rows: string[][];
}

/**
 * The table of `rows` under `columns`: a column no row records is left out, and with `headlineOnly`
 * so is every column outside the headline.
 */
export function tableOf<R>(columns: readonly Column<R>[], rows: readonly R[], headlineOnly = false): Cells {
  const shown = columns.filter((c) => (!c.recorded || rows.some(c.recorded)) && !(headlineOnly && c.outsideHeadline));
  return { header: shown.map((c) => c.header), rows: rows.map((r) => shown.map((c) => c.cell(r))) };
}

/** A figure as the tables show it: ms, MiB for bytes, KiB for bytes per cycle, with the metric's digits. */
export function figureText(metric: JudgedMetric, value: number | null): string {
  const { unit, digits } = metricOf(metric);
  if (unit === "ms") return ms(value, digits);
  if (unit === "bytes") return mib(value, digits);
  return value === null ? "n/a" : (value / 1024).toFixed(digits);
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
    ...(d.headline ? {} : { outsideHeadline: true }),
  };
}
