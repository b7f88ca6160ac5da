// The verdicts at a glance, the first chart of report.html (pure): a forest plot with one row per judged
// cell and metric, grouped by metric in the metric table's order: the median paired ratio as a dot
// coloured by its verdict, its 95% interval as a line, the cell's A/A band as a grey box behind them,
// its practical floor (the ratios it calls no change) and, for a guarded metric, the ceiling as
// lines, on one log-scale axis. Inline SVG, drawn without a script: it shows even where scripts are off.
import { cellName } from "../results/cell-names.js";
import { type JudgedMetric, metricOf, practicalTolerance } from "../results/metric-names.js";
import type { CellVerdict } from "../results/verdict-record.js";
import { ratio } from "../util/format.js";
import { median } from "../util/stats.js";
import { isLatencyMetric } from "../verdicts/metrics.js";
import { stormPairs } from "../verdicts/storm-verdict.js";
import type { ReportModel } from "./model.js";
import { verdictName } from "./verdict-wording.js";

/** One judged cell of one metric, as the plot draws it. */
export interface ForestRow {
  metric: JudgedMetric;
  cell: string;
  median: number | null;
  low: number | null;
  high: number | null;
  aa: { low: number; high: number } | null;
  /** The ratios the practical floor calls no change: 1 ± its tolerance in this cell; null without a floor. */
  floor: { low: number; high: number } | null;
  /** The guard's ceiling when the metric is guarded. */
  ceiling: number | null;
  /** The verdict's class (its colour) and its words. */
  verdict: string;
  words: string;
  /** Fewer than 8 pairs and no sign test: drawn hollow, as a hint. */
  indicative: boolean;
}

export interface ForestGroup {
  metric: JudgedMetric;
  title: string;
  rows: ForestRow[];
}

/** A judged cell of a paired metric or a storm figure. */
type Judged = Omit<CellVerdict, "metric"> & { metric: JudgedMetric };

/** A verdict's class: its colour in the plot and the legend. */
function verdictClass(v: Judged): string {
  if (v.verdict === "higher" && v.expected) return "expected";
  return v.verdict;
}

/** The baseline's median of a metric in a cell, in the metric's unit (what the practical floor is measured against). */
function baselineOf(model: ReportModel, metric: JudgedMetric, cell: string): number | null {
  const roles = model.roles;
  if (!roles) return null;
  const d = metricOf(metric);
  if (d.matrix === "storm") {
    const base = stormPairs(model.storm, cell, roles, metric as Parameters<typeof stormPairs>[3], 0).baselines;
    return base.length > 0 ? median(base) : null;
  }
  if (isLatencyMetric(metric)) return model.latency.find((k) => k.case === cell)?.medians[metric].baseline ?? null;
  const m = model.memory.find((c) => `${c.scriptBytes}x${c.clients}/${c.mode}` === cell);
  return m && metric in m.medians ? (m.medians[metric as keyof typeof m.medians].baseline ?? null) : null;
}

/** Every judged cell of every metric (the paired metrics, then the storm figures), grouped by metric. */
export function forestGroups(model: ReportModel): ForestGroup[] {
  const floor = model.conditions.minEffect;
  const verdicts: Judged[] = [...model.metrics.flatMap((m) => m.cells), ...model.stormVerdicts];
  const groups = new Map<JudgedMetric, ForestRow[]>();
  for (const v of verdicts) {
    const metric = v.metric;
    // None drawn for a metric without a floor (0) or where the floor reaches the baseline (null).
    const tolerance = practicalTolerance(metric, baselineOf(model, metric, v.cell), floor);
    const row: ForestRow = {
      metric,
      cell: v.cell,
      median: v.median,
      low: v.ciLow,
      high: v.ciHigh,
      aa: v.aaLow !== null && v.aaHigh !== null ? { low: v.aaLow, high: v.aaHigh } : null,
      floor: tolerance !== null && tolerance > 0 ? { low: 1 - tolerance, high: 1 + tolerance } : null,
      ceiling: v.guarded && model.guard ? model.guard.ceiling : null,
      verdict: verdictClass(v),
      words: verdictName(v),
      indicative: v.indicative && v.signTest === undefined,
    };
    groups.set(metric, [...(groups.get(metric) ?? []), row]);
  }
  return [...groups].map(([metric, rows]) => ({ metric, title: `${metric}: ${metricOf(metric).label}`, rows }));
}

/**
 * The plot's x range (log scale): every median, interval, A/A band and ceiling, 1.0 always, clamped to
 * [1/8, 8]. A floor wider than that (a tiny baseline against the absolute floor) is not drawn, rather
 * than squeezing every row to make room for it.
 */
export function forestDomain(groups: readonly ForestGroup[]): { low: number; high: number } {
  const xs: number[] = [1];
  for (const r of groups.flatMap((g) => g.rows)) {
    for (const x of [r.median, r.low, r.high, r.aa?.low, r.aa?.high, r.ceiling]) {
      if (typeof x === "number" && x > 0 && Number.isFinite(x)) xs.push(x);
    }
  }
  const lo = Math.log(Math.min(...xs));
  const hi = Math.log(Math.max(...xs));
  const pad = Math.max((hi - lo) * 0.08, 0.01);
  return { low: Math.max(1 / 8, Math.exp(lo - pad)), high: Math.min(8, Math.exp(hi + pad)) };
}

const TICKS = [
  0.125, 0.25, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 1, 1.01, 1.02, 1.05, 1.1, 1.2, 1.25, 1.5, 2, 3, 4, 6, 8,
];

/** Tick ratios inside the domain, at least `minPx` apart at `scale`, always 1.0 (picked outward from it). */
export function forestTicks(domain: { low: number; high: number }, scale: (x: number) => number, minPx = 44): number[] {
  const inside = TICKS.filter((t) => t >= domain.low && t <= domain.high);
  const kept = [1];
  for (const side of [inside.filter((t) => t > 1), inside.filter((t) => t < 1).reverse()]) {
    let last = scale(1);
    for (const t of side) {
      if (Math.abs(scale(t) - last) >= minPx) {
        kept.push(t);
        last = scale(t);
      }
    }
  }
  return kept.sort((a, b) => a - b);
}

type Escape = (text: string) => string;

/** The plot's geometry (CSS pixels): the label column, the plot, the verdict column, row heights. */
const G = { width: 1080, left: 220, right: 170, axis: 28, title: 24, row: 18, legend: 44 };
const PLOT = { x0: G.left + 12, x1: G.width - G.right - 12 };

/** A verdict class's colour (the legend says which is which). */
const COLOURS: Record<string, string> = {
  lower: "#1a9850",
  pass: "#1a9850",
  higher: "#d73027",
  fail: "#d73027",
  expected: "#f08a3e",
  "no-practical-change": "#4575b4",
  noise: "#8c8c8c",
  missing: "#a3a3a3",
  "too-few-pairs": "#a3a3a3",
  "not-judged": "#a3a3a3",
};

const LEGEND: [string, string][] = [
  ["lower", "lower / PASS"],
  ["higher", "higher / FAIL"],
  ["expected", "higher, expected"],
  ["no-practical-change", "no practical change"],
  ["noise", "noise"],
  ["missing", "missing, too few pairs, not judged"],
];

const fixed = (x: number) => +x.toFixed(1);

/** A cell or metric label, shortened with "…" past `max` characters (the row's tooltip has it whole). */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One row: A/A band, floor and ceiling lines, the interval, the median (a triangle at the edge when outside), labels. */
function rowSvg(
  r: ForestRow,
  y: number,
  x: (v: number) => number,
  inDomain: (v: number) => boolean,
  esc: Escape,
): string {
  const top = y + 2;
  const mid = y + G.row / 2;
  const h = G.row - 4;
  const colour = COLOURS[r.verdict] ?? "#8c8c8c";
  const seg = (cls: string, at: number, stroke: string, dash: string) =>
    `<line class="${cls}" x1="${fixed(x(at))}" x2="${fixed(x(at))}" y1="${top}" y2="${top + h}" stroke="${stroke}" stroke-dasharray="${dash}"/>`;
  const parts: string[] = [];
  if (r.aa) {
    const [a, b] = [x(r.aa.low), x(r.aa.high)];
    parts.push(
      `<rect class="aa" x="${fixed(a)}" y="${top}" width="${fixed(Math.max(b - a, 1))}" height="${h}" fill="#e3e6eb"/>`,
    );
  }
  for (const at of r.floor ? [r.floor.low, r.floor.high] : []) {
    if (inDomain(at)) parts.push(seg("floor", at, "#4575b4", "2 2"));
  }
  if (r.ceiling !== null) parts.push(seg("ceiling", r.ceiling, "#d73027", "4 2"));
  if (r.low !== null && r.high !== null) {
    const [a, b] = [x(r.low), x(r.high)];
    parts.push(
      `<line class="ci" x1="${fixed(a)}" x2="${fixed(b)}" y1="${mid}" y2="${mid}" stroke="${colour}" stroke-width="2"/>`,
      `<line x1="${fixed(a)}" x2="${fixed(a)}" y1="${mid - 4}" y2="${mid + 4}" stroke="${colour}" stroke-width="1.5"/>`,
      `<line x1="${fixed(b)}" x2="${fixed(b)}" y1="${mid - 4}" y2="${mid + 4}" stroke="${colour}" stroke-width="1.5"/>`,
    );
  }
  if (r.median !== null) {
    const cx = x(r.median);
    const fill = r.indicative ? "#fff" : colour;
    const edge = cx <= PLOT.x0 ? -1 : cx >= PLOT.x1 ? 1 : 0;
    parts.push(
      edge === 0
        ? `<circle class="median" cx="${fixed(cx)}" cy="${mid}" r="4.5" fill="${fill}" stroke="${colour}" stroke-width="2"/>`
        : `<path class="median outside" d="M${fixed(cx)} ${mid}l${-6 * edge} -5v10z" fill="${colour}"/>`,
    );
  }
  const interval = r.low !== null && r.high !== null ? ` (${ratio(r.low)}–${ratio(r.high)})` : "";
  const aa = r.aa ? `; A/A band ${ratio(r.aa.low)}–${ratio(r.aa.high)}` : "";
  const title = `${r.metric} ${cellName(r.cell)}: ${r.median === null ? "no pairs" : ratio(r.median)}${interval}${aa}; ${r.words}${r.indicative ? " (indicative)" : ""}`;
  return [
    `<g class="forest-row" data-metric="${esc(r.metric)}" data-cell="${esc(r.cell)}" data-verdict="${esc(r.verdict)}"${r.median === null ? "" : ` data-median="${r.median}"`}>`,
    `<title>${esc(title)}</title>`,
    `<text class="cell-label" x="${G.left}" y="${mid + 4}" text-anchor="end">${esc(clip(cellName(r.cell), 34))}</text>`,
    ...parts,
    `<text class="verdict-label" x="${PLOT.x1 + 14}" y="${mid + 4}" fill="${colour}">${esc(clip(r.words, 24))}</text>`,
    "</g>",
  ].join("");
}

/** The axis: tick lines through the plot, tick labels above and below it, 1.0 drawn solid. */
function axisSvg(ticks: number[], x: (v: number) => number, bottom: number): string {
  return ticks
    .map((t) => {
      const at = fixed(x(t));
      const line = t === 1 ? 'stroke="#5b6575" stroke-width="1.2"' : 'stroke="#eceef2"';
      const label = t.toString();
      return `<line class="grid" x1="${at}" x2="${at}" y1="${G.axis - 4}" y2="${bottom + 4}" ${line}/><text class="tick" x="${at}" y="${G.axis - 9}" text-anchor="middle">${label}</text><text class="tick" x="${at}" y="${bottom + 17}" text-anchor="middle">${label}</text>`;
    })
    .join("");
}

/** The legend under the plot, two lines: the verdicts' colours; the dot, interval, band, floor and ceiling. */
function legendSvg(y: number, esc: Escape): string {
  const line = (at: number, items: [string, string][]) => {
    let x = G.left - 200;
    return items.map(([mark, text]) => {
      const item = `<g class="legend-item" transform="translate(${fixed(x)} ${at})">${mark}<text x="10" y="4">${esc(text)}</text></g>`;
      x += 30 + text.length * 6.6;
      return item;
    });
  };
  const verdicts = LEGEND.map(([cls, text]): [string, string] => [`<circle r="4.5" fill="${COLOURS[cls]}"/>`, text]);
  const marks: [string, string][] = [
    ['<circle r="4.5" fill="#fff" stroke="#8c8c8c" stroke-width="2"/>', "hollow: fewer than 8 pairs, indicative"],
    ['<line x1="-6" x2="6" stroke="#8c8c8c" stroke-width="2"/>', "95% interval"],
    ['<rect x="-6" y="-6" width="12" height="12" fill="#e3e6eb"/>', "A/A band"],
    ['<line y1="-7" y2="7" stroke="#4575b4" stroke-dasharray="2 2"/>', "practical floor"],
    ['<line y1="-7" y2="7" stroke="#d73027" stroke-dasharray="4 2"/>', "ceiling (guarded metrics)"],
  ];
  return [...line(y, verdicts), ...line(y + 20, marks)].join("");
}

/** The whole plot as inline SVG, or "" when nothing was judged. */
export function forestSvg(groups: readonly ForestGroup[], esc: Escape): string {
  if (groups.length === 0) return "";
  const domain = forestDomain(groups);
  const span = Math.log(domain.high) - Math.log(domain.low);
  const x = (v: number) => {
    const clamped = Math.min(domain.high, Math.max(domain.low, v));
    return PLOT.x0 + ((Math.log(clamped) - Math.log(domain.low)) / span) * (PLOT.x1 - PLOT.x0);
  };
  const body: string[] = [];
  let y = G.axis;
  for (const g of groups) {
    body.push(`<text class="group-title" x="${G.left - 200}" y="${y + 17}">${esc(clip(g.title, 150))}</text>`);
    y += G.title;
    for (const r of g.rows) {
      body.push(rowSvg(r, y, x, (v) => v >= domain.low && v <= domain.high, esc));
      y += G.row;
    }
  }
  const height = y + G.axis + G.legend;
  const axis = axisSvg(forestTicks(domain, x), x, y);
  return `<svg class="forest" width="${G.width}" height="${height}" viewBox="0 0 ${G.width} ${height}" role="img" aria-label="median paired ratio candidate/baseline per judged cell and metric, with 95% intervals">${axis}${body.join("")}${legendSvg(y + G.axis + 12, esc)}</svg>`;
}
