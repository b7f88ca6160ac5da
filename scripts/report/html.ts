// The report model + chart data -> report.html (pure string). One self-contained file: uPlot's code and
// CSS are inlined (passed in by the caller, read from node_modules at render time), the data is inline
// JSON, and a Content-Security-Policy of default-src 'none' forbids any network request when opened.

import { metricOf } from "../results/metric-names.js";
import { type Chart, chartedTimers, type MemoryChart } from "./charts.js";
import { failuresMarkdown } from "./failures.js";
import { forestGroups, forestSvg } from "./forest-plot.js";
import { CHART_CSS, CHART_JS, chartFigure, memoryFigure } from "./html-charts.js";
import { leakCharts, leakHtml } from "./leak-section.js";
import { loadLine } from "./load-section.js";
import { escapeHtml, htmlCells, htmlTable } from "./markup.js";
import type { ReportModel } from "./model.js";
import { type RssSplitChart, rssSplitFigure } from "./rss-split-chart.js";
import { splitNote } from "./rss-split-section.js";
import { stormCharts, stormHtml } from "./storm-section.js";
import { summaryHtml, summaryOf } from "./summary.js";
import {
  attributionOf,
  latencyCells,
  latencyNote,
  memoryCells,
  memoryNote,
  metricTables,
  probeCells,
  rssSplitCellsOf,
  SEED_NOTE,
  seedCells,
} from "./table-data.js";
import { targetsHtml } from "./targets.js";
import { autoSampleText, guardSummary, memoryRoundsText, VERDICT_NOTE } from "./verdict-wording.js";

export interface HtmlAssets {
  uplotJs: string;
  uplotCss: string;
}

/** JSON safe inside a <script> element: no "</script>" or "<!--" can appear. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * A self-contained page's opening up to </head>: a Content-Security-Policy that forbids any request
 * (scripts and styles inline only), uPlot's CSS and the page's own.
 */
export function pageHead(title: string, assets: HtmlAssets, css: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${assets.uplotCss}</style>
<style>${css}</style>
</head>`;
}

/** Inline code must not close its own <script> element. */
export function scriptText(code: string): string {
  return code.replace(/<\/script/gi, "<\\/script");
}

function latencyHtml(model: ReportModel): string {
  const c = latencyCells(model);
  return c ? htmlCells(c, "num") : "<p>No latency trials in this run.</p>";
}

/** How the latency charts draw each timer, from the metric table's chart styles. */
function chartNote(): string {
  const point = { dot: "filled dots", ring: "rings" };
  const median = { dash: "dashed lines", dotted: "dotted lines" };
  const timers = chartedTimers();
  return `In each chart, per trial: ${timers.map((t) => `${point[t.point]}, ${escapeHtml(t.name)}`).join("; ")}; their medians: ${timers.map((t) => `${median[t.median]}, ${escapeHtml(t.name)}`).join("; ")}.`;
}

function memoryHtml(model: ReportModel): string {
  const c = memoryCells(model);
  return c ? htmlCells(c, "num") : "<p>No memory cells in this run.</p>";
}

/** "Where the RSS was at its peak": the table and the stacked areas of the bold trials. */
function rssSplitHtml(model: ReportModel, charts: readonly RssSplitChart[]): string {
  const { cells, table } = rssSplitCellsOf(model);
  if (!table && charts.length === 0) return "";
  return [
    "<h2>Where the RSS was at its peak</h2>",
    table ? htmlTable(table.header, table.rows, "num") : "",
    `<p class="note">${escapeHtml(splitNote(cells))} Below: the same split over time for each variant's bold trial (the median by peak heap), stacked; its top edge is the RSS the server reported at each heap tick.</p>`,
    `<div class="grid">${charts.map((c) => rssSplitFigure(c, escapeHtml)).join("\n")}</div>`,
  ].join("\n");
}

/** --attribute's sites per cell: the same tables and lines as report.md. */
function attributionHtml(model: ReportModel): string {
  const a = attributionOf(model);
  if (!a) return "";
  return [
    "<h2>Allocation sites at the peak heap (--attribute)</h2>",
    `<p class="note">${escapeHtml(a.note)}</p>`,
    ...a.sections.map(
      (s) =>
        `<h3>${escapeHtml(s.cell)}</h3>${s.peak ? htmlTable(s.peak.header, s.peak.rows, "num") : ""}${s.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("")}`,
    ),
  ].join("\n");
}

function probeHtml(model: ReportModel): string {
  const c = probeCells(model);
  return c ? htmlTable(c.header, c.rows, "num") : "<p>No probe figures.</p>";
}

function seedHtml(model: ReportModel): string {
  const c = seedCells(model);
  return c
    ? `<h2>Seeding</h2>\n${htmlTable(c.header, c.rows, "num")}\n<p class="note">${escapeHtml(SEED_NOTE)}</p>`
    : "";
}

/** The verdicts at a glance: the forest plot of every judged cell and metric, and how to read it. */
function forestHtml(model: ReportModel): string {
  const groups = forestGroups(model);
  if (!model.roles || groups.length === 0) return "";
  const lower = groups.every((g) => metricOf(g.metric).better === "lower");
  return [
    "<h2>Verdicts at a glance</h2>",
    `<p class="note">One row per judged cell and metric: the median paired ratio ${escapeHtml(model.roles.candidate)}/${escapeHtml(model.roles.baseline)} as a dot coloured by its verdict, its 95% interval as a line, the cell's A/A band as a grey box behind it, its practical floor as dashed blue lines (between them: no practical change) and, for a guarded metric, the ceiling as a dashed red line; log scale${lower ? ", left of 1.0 the candidate is lower, which is better for every figure here" : ""}. The tables under Verdicts per cell give each row's figures and reasons.</p>`,
    `<div class="forestbox">${forestSvg(groups, escapeHtml)}</div>`,
  ].join("\n");
}

/** Per metric: its per-cell verdict table and the pooled summary line under it. */
function verdictsHtml(model: ReportModel): string {
  const tables = metricTables(model);
  if (tables.length === 0) return "";
  const auto = autoSampleText(model);
  const rounds = memoryRoundsText(model);
  return [
    "<h2>Verdicts per cell</h2>",
    `<p class="note">${escapeHtml(VERDICT_NOTE)}</p>`,
    auto ? `<p>${escapeHtml(auto)}</p>` : "",
    loadLine(model.load) ? `<p>${escapeHtml(loadLine(model.load) ?? "")}</p>` : "",
    rounds ? `<p>${escapeHtml(rounds)}</p>` : "",
    ...tables.map(
      (t) =>
        `<h3>${escapeHtml(t.title)}</h3>\n${htmlTable(t.header, t.rows, "num verdicts")}\n<p class="note">${escapeHtml(t.pooled)}</p>`,
    ),
  ].join("\n");
}

const CSS = `
:root { --b: #1f77b4; --c: #d95f02; --ink: #1d2430; --muted: #5b6575; --rule: #d8dde5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); margin: 0; background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; min-height: 100vh; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-top: 12px; border-top: 1px solid var(--rule); }
p.lead { margin: 0 0 12px; color: var(--muted); }
p.note { color: var(--muted); font-size: 12.5px; margin: 6px 0; }
.key { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin: 0 4px 0 10px; }
.key.b { background: var(--b); } .key.c { background: var(--c); }
main { overflow-wrap: anywhere; }
.tablebox { overflow-x: auto; margin: 8px 0; max-width: 100%; background:
  linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 36px 100% no-repeat local,
  radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.16), transparent) right / 12px 100% no-repeat scroll; }
table { border-collapse: collapse; font-size: 13px; width: 100%; overflow-wrap: normal; }
.tablebox th:first-child, .tablebox td:first-child { position: sticky; left: 0; background: #fff; }
.tablebox th:first-child { background: #eef1f5; }
th, td { border-bottom: 1px solid var(--rule); padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
table.num td:not(:first-child) { font-variant-numeric: tabular-nums; white-space: nowrap; }
.banner { background: #fff4e5; border: 1px solid #f0c36d; padding: 8px 12px; border-radius: 6px; }
ul.failures { color: #a33; }
h3 { font-size: 14.5px; margin: 18px 0 4px; }
table.verdicts td:last-child { white-space: normal; }
table.verdicts td:first-child { white-space: nowrap; }
.banner.guard { background: #eef4ff; border-color: #9db8e8; font-weight: 600; }
.forestbox { overflow-x: auto; max-width: 100%; margin: 8px 0; }
svg.forest { display: block; font-size: 12px; }
svg.forest .tick { fill: var(--muted); font-size: 11px; font-variant-numeric: tabular-nums; }
svg.forest .group-title { font-weight: 600; }
svg.forest .forest-row:hover { outline: 1px solid var(--rule); }
`;

/** The failure sections of report.md, as HTML (the same bounded, escaped text). */
function failuresHtml(f: ReportModel["failureReport"]): string {
  const md = failuresMarkdown(f);
  if (md.length === 0) return "";
  const out: string[] = [];
  let list: string[] = [];
  let rows: string[][] = [];
  const flush = () => {
    if (list.length > 0) out.push(`<ul class="failures">${list.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>`);
    if (rows.length > 0) {
      const [head, ...body] = rows;
      out.push(
        `<table><thead><tr>${(head ?? []).map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${body
          .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`)
          .join("")}</tbody></table>`,
      );
    }
    list = [];
    rows = [];
  };
  for (const line of md) {
    if (line.startsWith("## ")) {
      flush();
      out.push(`<h2>${escapeHtml(line.slice(3))}</h2>`);
    } else if (line.startsWith("- ")) list.push(line.slice(2));
    else if (line.startsWith("|---")) continue;
    else if (line.startsWith("| ")) {
      rows.push(
        line
          .slice(2, -2)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replace(/\\\|/g, "|")),
      );
    } else if (line.trim() !== "") {
      flush();
      out.push(`<p>${escapeHtml(line)}</p>`);
    }
  }
  flush();
  return out.join("\n");
}

/**
 * Every table in its own box that scrolls sideways: a wide table never widens the page. All text
 * inside is escaped, so "<table" only ever opens one of ours.
 */
export function boxTables(html: string): string {
  return html.replace(/<table\b[\s\S]*?<\/table>/g, (t) => `<div class="tablebox">${t}</div>`);
}

/** The whole report.html. */
export function renderHtml(model: ReportModel, charts: Chart[], assets: HtmlAssets): string {
  const r = model.roles;
  const latencyCharts = charts.filter((c) => c.kind === "latency");
  const memoryCharts = charts.filter((c): c is MemoryChart => c.kind === "memory");
  const splitCharts = charts.filter((c): c is RssSplitChart => c.kind === "rss-split");
  const failures = failuresHtml(model.failureReport);
  const lead = r
    ? `Baseline <span class="key b"></span><b>${escapeHtml(r.baseline)}</b>, candidate <span class="key c"></span><b>${escapeHtml(r.candidate)}</b>. Ratios are candidate / baseline, paired trial by trial; below 1.0 the candidate is lower (for every figure here, lower is better).`
    : model.single
      ? `A single target, <span class="key b"></span><b>${escapeHtml(model.single)}</b>: its figures, with nothing to compare them with (no ratios).`
      : "This run has no variants.";
  const guard = guardSummary(model);
  return boxTables(`${pageHead("catchup-bench report", assets, `${CSS}${CHART_CSS}`)}
<body>
<main>
<h1>catchup-bench report</h1>
${summaryHtml(summaryOf(model))}
<p class="lead">${lead}</p>
${model.interrupted ? '<p class="banner">This run was interrupted: the tables hold only the trials that finished.</p>' : ""}
${model.loadWarning ? `<p class="banner">${escapeHtml(model.loadWarning)}</p>` : ""}
${guard ? `<p class="banner guard">${escapeHtml(guard)}</p>` : ""}
${forestHtml(model)}
${verdictsHtml(model)}
<h2>Latency: subscribe to completion marker</h2>
${latencyHtml(model)}
<div class="grid">${latencyCharts.map((c) => chartFigure(c, escapeHtml)).join("\n")}</div>
${model.latency.length > 0 ? `<p class="note">${escapeHtml(latencyNote(model))} ${chartNote()}${r ? " With fewer than 8 pairs the ratio's interval is too narrow, so read it as indicative only." : ""}</p>` : ""}
<h2>Memory: server heap and RSS per cell</h2>
${memoryHtml(model)}
${memoryCells(model) ? `<p class="note">${escapeHtml(memoryNote(model))}</p>` : ""}
<div class="grid">${memoryCharts.map((c) => memoryFigure(c, escapeHtml)).join("\n")}</div>
<p class="note">Every trial is drawn: faint lines are the other trials, bold lines one trial per variant, by default the one whose peak heap is the median of the variant's trials (the buttons above a chart make another trial bold). Solid: heap used; dashed: RSS; dots: heap after a forced GC (before the clients connect, and after they closed). Right of each plot: the bold trials' peak heap and peak RSS (MiB), joined to a ring on the peak. Above each plot, the bold trials' phases: connect, first chunk, completion and close are named; the others (baseline, hold end, GC) are ticks, named when hovered. RSS is read from /proc on its own schedule; heap is asked of the server's inspector, which cannot answer while the server runs native code (a major GC, a large JSON.stringify, sync zlib or crypto): a break in a heap line is such a stretch with no answer, left as a gap. Both variants' timelines start when their clients connect.</p>
${rssSplitHtml(model, splitCharts)}
${attributionHtml(model)}
<h2>Concurrent probe</h2>
${probeHtml(model)}
${leakHtml(model.leak, r)}
${stormHtml(model.storm, r, model.stormVerdicts)}
${failures}
${targetsHtml(model.targets)}
${seedHtml(model)}
<h2>Environment</h2>
<p>${escapeHtml(model.environment)}</p>
<p>${escapeHtml(model.notMeasured)}</p>
${model.variantDescriptions.length > 0 ? `<p class="note">Variants: ${escapeHtml(model.variantDescriptions.join("; "))}.</p>` : ""}
</main>
<script type="application/json" id="report-data">${scriptJson({ charts: [...charts, ...leakCharts(model.leak, r?.baseline ?? null), ...stormCharts(model.storm, r?.baseline ?? null)] })}</script>
<script>${scriptText(assets.uplotJs)}</script>
<script>${scriptText(CHART_JS)}</script>
</body>
</html>
`);
}
