// The report model + chart data -> report.html (pure string). One self-contained file: uPlot's code and
// CSS are inlined (passed in by the caller, read from node_modules at render time), the data is inline
// JSON, and a Content-Security-Policy of default-src 'none' forbids any network request when opened.

import { leakCharts, leakHtml } from "../leak/report.js";
import { STORM_CHART_JS, stormCharts, stormHtml } from "../storm/report.js";
import type { Chart, MemoryChart } from "./charts.js";
import { failuresMarkdown } from "./failures.js";
import {
  autoSampleText,
  guardSummary,
  latencyCells,
  memoryCells,
  memoryRoundsText,
  metricTables,
  probeCells,
  VERDICT_NOTE,
} from "./markdown.js";
import type { ReportModel } from "./model.js";

export interface HtmlAssets {
  uplotJs: string;
  uplotCss: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** JSON safe inside a <script> element: no "</script>" or "<!--" can appear. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Inline code must not close its own <script> element. */
function scriptText(code: string): string {
  return code.replace(/<\/script/gi, "<\\/script");
}

function table(header: string[], rows: string[][], className = ""): string {
  const head = header.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("\n");
  return `<table class="${className}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function latencyHtml(model: ReportModel): string {
  const c = latencyCells(model);
  return c ? table(c.header, c.rows, "num") : "<p>No latency trials in this run.</p>";
}

function memoryHtml(model: ReportModel): string {
  const c = memoryCells(model);
  return c ? table(c.header, c.rows, "num") : "<p>No memory cells in this run.</p>";
}

function probeHtml(model: ReportModel): string {
  const c = probeCells(model);
  return c ? table(c.header, c.rows, "num") : "<p>No probe figures.</p>";
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
    rounds ? `<p>${escapeHtml(rounds)}</p>` : "",
    ...tables.map(
      (t) =>
        `<h3>${escapeHtml(t.title)}</h3>\n${table(t.header, t.rows, "num verdicts")}\n<p class="note">${escapeHtml(t.pooled)}</p>`,
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
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; width: 100%; }
th, td { border-bottom: 1px solid var(--rule); padding: 5px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
table.num td:not(:first-child) { font-variant-numeric: tabular-nums; white-space: nowrap; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 14px; margin-top: 10px; }
figure { margin: 0; border: 1px solid var(--rule); border-radius: 6px; padding: 8px; }
figcaption { font-size: 12.5px; font-weight: 600; margin-bottom: 4px; }
figure .missing { color: #a33; font-size: 12px; }
.legend { font-size: 12px; color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 2px 6px; }
.sw { display: inline-block; width: 18px; height: 0; margin-right: 5px; vertical-align: middle; }
.sw.solid { border-top: 2.5px solid; } .sw.dash { border-top: 2px dashed; }
.sw.dot { width: 9px; height: 9px; border-radius: 50%; background: currentColor; }
.sw.b { color: var(--b); } .sw.c { color: var(--c); }
.banner { background: #fff4e5; border: 1px solid #f0c36d; padding: 8px 12px; border-radius: 6px; }
ul.failures { color: #a33; }
h3 { font-size: 14.5px; margin: 18px 0 4px; }
table.verdicts td:last-child { white-space: normal; }
table.verdicts td:first-child { white-space: nowrap; }
.banner.guard { background: #eef4ff; border-color: #9db8e8; font-weight: 600; }
.trials { font-size: 12px; color: var(--muted); margin: 2px 0 4px; }
.trials button { font: inherit; margin-left: 4px; padding: 1px 8px; border: 1px solid var(--rule); background: #fff; border-radius: 4px; cursor: pointer; }
.trials button.on { background: var(--ink); color: #fff; border-color: var(--ink); }
`;

/** The chart code run in the page: one uPlot per chart, phase marks drawn on the memory timelines. */
const CHART_JS = `
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var B = "#1f77b4", C = "#d95f02";
  window.__charts = [];
  window.__chartErrors = [];
  function fmt(v, d) { return v == null ? "-" : v.toFixed(d); }
  function points(label, color) {
    return { label: label, stroke: color, fill: color, paths: function () { return null; },
      points: { show: true, size: 9, stroke: color, fill: color }, value: function (u, v) { return fmt(v, 1); } };
  }
  function line(label, color, dash, width) {
    return { label: label, stroke: color, width: width || 1.5, dash: dash, spanGaps: false,
      points: { show: false }, value: function (u, v) { return fmt(v, 2); } };
  }
  // Phase marks: a dotted vertical line per phase. Labels are laid out greedily: each goes into the
  // first row (baseline rows from the top, candidate rows from the bottom) where it clears the label
  // before it, measured in pixels, so no two labels overlap; a label with no free row is left out
  // (its line stays) rather than drawn over another. window.__phaseLabels keeps the boxes drawn.
  window.__phaseLabels = [];
  function phasePlugin(id, phases) {
    return { hooks: { draw: function (u) {
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height, left = u.bbox.left, right = left + u.bbox.width;
      var px = devicePixelRatio || 1, gap = 4 * px, rowH = 12 * px, maxRows = Math.max(1, Math.floor(h / 2 / rowH) - 1);
      var ends = [[], []];
      window.__phaseLabels = window.__phaseLabels.filter(function (b) { return b.chart !== id; });
      ctx.save();
      ctx.font = Math.round(9.5 * px) + "px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      var marks = phases.map(function (p) { return { p: p, x: Math.round(u.valToPos(p.t, "x", true)) }; })
        .filter(function (m) { return m.x >= left && m.x <= right; })
        .sort(function (a, b) { return a.x - b.x; });
      marks.forEach(function (m) {
        var p = m.p, x = m.x;
        var color = p.variant === 0 ? "rgba(31,119,180," : "rgba(217,95,2,";
        ctx.strokeStyle = color + "0.45)";
        ctx.setLineDash([2 * px, 3 * px]);
        ctx.lineWidth = px;
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
        var w = ctx.measureText(p.phase).width;
        // Right of the line, or left of it when it would run past the plot's right edge.
        var x0 = x + 3 * px + w > right ? x - 3 * px - w : x + 3 * px;
        var rows = ends[p.variant], row = -1;
        for (var r = 0; r < maxRows; r++) { if (rows[r] === undefined || x0 >= rows[r] + gap) { row = r; break; } }
        if (row < 0) return;
        rows[row] = x0 + w;
        var y = p.variant === 0 ? top + (8 * px + row * rowH) : top + h - (8 * px + row * rowH);
        // A thin white halo keeps the label legible without hiding the lines under it.
        ctx.setLineDash([]);
        ctx.lineWidth = 2.5 * px;
        ctx.strokeStyle = "rgba(255,255,255,0.9)";
        ctx.strokeText(p.phase, x0, y);
        ctx.fillStyle = color + "1)";
        ctx.fillText(p.phase, x0, y);
        window.__phaseLabels.push({ chart: id, text: p.phase, x0: x0 / px, x1: (x0 + w) / px,
          y0: (y - rowH / 2) / px, y1: (y + rowH / 2) / px });
      });
      ctx.restore();
    } } };
  }
  // Memory timelines: RSS and heap come from separate lanes, so a null in the JSON means "no value
  // at this x" (undefined: the line joins across it); a break is a stretch with no heap answer, where
  // the line stops (null, with spanGaps false): a gap is drawn as a gap, never interpolated.
  function withBreaks(c) {
    var d = c.data.map(function (col, i) {
      return i === 0 ? col : col.map(function (v) { return v === null ? undefined : v; });
    });
    var at = {};
    d[0].forEach(function (x, i) { at[x] = i; });
    (c.breaks || []).forEach(function (b) { if (at[b[1]] !== undefined) d[b[0]][at[b[1]]] = null; });
    return d;
  }
  function width(el) { return Math.max(360, Math.floor(el.clientWidth - 4)); }
  function draw(c, el) {
    var opts;
    if (c.kind === "latency") {
      var xs = c.data[0];
      var lo = xs.length ? xs[0] - 0.5 : 0, hi = xs.length ? xs[xs.length - 1] + 0.5 : 1;
      opts = { width: width(el), height: 240, legend: { show: false },
        scales: { x: { time: false, range: [lo, hi] }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.15]; } } },
        axes: [ { label: "trial", incrs: [1], values: function (u, v) { return v.map(function (x) { return x; }); } },
                { label: "ms", size: 60 } ],
        series: [ { label: "trial" }, points(c.names[0], B), points(c.names[1], C),
                  line(c.names[0] + " median", B, [6, 4]), line(c.names[1] + " median", C, [6, 4]) ] };
${STORM_CHART_JS}
    } else if (c.kind === "leak") {
      var K = c.role === 0 ? B : C;
      opts = { width: width(el), height: 260, legend: { show: false },
        scales: { x: { time: false }, y: { range: function (u, mn, mx) { var pad = (mx - mn) * 0.15 || 0.5; return [mn - pad, mx + pad]; } } },
        axes: [ { label: "cycle" }, { label: "MiB", size: 60 } ],
        series: [ { label: "cycle" }, points("warm-up", "#999999"), points(c.name + " post-GC heap", K),
                  line("Theil-Sen fit", K, [6, 4], 2) ] };
    } else {
      opts = { width: width(el), height: 320, legend: { show: false },
        scales: { x: { time: false }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.1]; } } },
        axes: [ { label: "ms since clients connect" }, { label: "MiB", size: 60 } ],
        series: [ { label: "ms" },
                  line(c.names[0] + " heap", B, undefined, 2), line(c.names[0] + " RSS", B, [8, 3], 1.5),
                  points(c.names[0] + " post-GC heap", B),
                  line(c.names[1] + " heap", C, undefined, 2), line(c.names[1] + " RSS", C, [8, 3], 1.5),
                  points(c.names[1] + " post-GC heap", C) ],
        plugins: [ phasePlugin(el.id, c.phases) ] };
    }
    return new uPlot(opts, c.kind === "memory" ? withBreaks(c) : c.data, el);
  }
  // A memory cell's trials share one figure: the first is drawn, the buttons swap in another.
  var groups = {};
  data.charts.forEach(function (c) {
    if (c.kind === "memory" && c.cell != null) (groups[c.cell] = groups[c.cell] || []).push(c);
  });
  var plots = {};
  data.charts.forEach(function (c) {
    var group = c.kind === "memory" && c.cell != null ? groups[c.cell] : null;
    if (group && group[0] !== c) return;
    var el = document.getElementById(c.id);
    try {
      plots[c.id] = draw(c, el);
      window.__charts.push(plots[c.id]);
    } catch (e) {
      window.__chartErrors.push(c.id + ": " + e);
      console.error("chart " + c.id + " failed: " + e);
    }
  });
  document.querySelectorAll(".trials button").forEach(function (b) {
    b.addEventListener("click", function () {
      var id = b.getAttribute("data-chart"), el = document.getElementById(id);
      var group = null;
      Object.keys(groups).forEach(function (k) { if (groups[k][0].id === id) group = groups[k]; });
      var c = group && group[Number(b.getAttribute("data-pick"))];
      if (!c || !el) return;
      try {
        var old = plots[id];
        var plot = draw(c, el);
        if (old) { window.__charts[window.__charts.indexOf(old)] = plot; old.destroy(); }
        plots[id] = plot;
      } catch (e) {
        window.__chartErrors.push(c.id + ": " + e);
      }
      b.parentNode.querySelectorAll("button").forEach(function (o) { o.className = o === b ? "on" : ""; });
    });
  });
})();
`;

function legend(c: Chart): string {
  const [b, d] = c.names.map(escapeHtml);
  const single = c.names[0] === c.names[1];
  const all =
    c.kind === "latency"
      ? [
          `<span class="sw dot b"></span>${b} trials`,
          `<span class="sw dash b"></span>${b} median`,
          `<span class="sw dot c"></span>${d} trials`,
          `<span class="sw dash c"></span>${d} median`,
        ]
      : [
          `<span class="sw solid b"></span>${b} heap`,
          `<span class="sw dash b"></span>${b} RSS`,
          `<span class="sw dot b"></span>${b} heap after forced GC`,
          `<span class="sw solid c"></span>${d} heap`,
          `<span class="sw dash c"></span>${d} RSS`,
          `<span class="sw dot c"></span>${d} heap after forced GC`,
        ];
  // A single target: only its own (baseline-coloured) entries.
  const items = single ? all.filter((i) => i.includes(' b"')) : all;
  return `<div class="legend">${items.map((i) => `<span>${i}</span>`).join("")}</div>`;
}

function figure(c: Chart): string {
  const missing =
    c.kind === "memory" && c.missing.length > 0 ? `<div class="missing">${escapeHtml(c.missing.join("; "))}</div>` : "";
  return `<figure><figcaption>${escapeHtml(c.title)}</figcaption>${missing}<div class="chart" id="${c.id}"></div>${legend(c)}</figure>`;
}

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

/** One figure per memory cell; its trials (rounds) are picked with buttons, the first drawn at load. */
function memoryFigures(charts: Chart[]): string[] {
  const groups = new Map<string, MemoryChart[]>();
  for (const c of charts) {
    if (c.kind !== "memory") continue;
    const key = String(c.cell ?? c.id);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0] as MemoryChart;
    const buttons =
      group.length > 1
        ? `<div class="trials">trial: ${group
            .map(
              (c, i) =>
                `<button type="button" data-chart="${escapeHtml(first.id)}" data-pick="${i}"${i === 0 ? ' class="on"' : ""}>${c.trial ?? i + 1}</button>`,
            )
            .join("")}</div>`
        : "";
    const missing = [...new Set(group.flatMap((c) => c.missing.map((m) => `trial ${c.trial ?? 1}: ${m}`)))];
    const note = missing.length > 0 ? `<div class="missing">${escapeHtml(missing.join("; "))}</div>` : "";
    return `<figure><figcaption>${escapeHtml(first.title)}</figcaption>${buttons}${note}<div class="chart" id="${escapeHtml(first.id)}"></div>${legend(first)}</figure>`;
  });
}

/** The whole report.html. */
export function renderHtml(model: ReportModel, charts: Chart[], assets: HtmlAssets): string {
  const r = model.roles;
  const latencyCharts = charts.filter((c) => c.kind === "latency");
  const memoryCharts = charts.filter((c) => c.kind === "memory");
  const failures = failuresHtml(model.failureReport);
  const lead = r
    ? `Baseline <span class="key b"></span><b>${escapeHtml(r.baseline)}</b>, candidate <span class="key c"></span><b>${escapeHtml(r.candidate)}</b>. Ratios are candidate / baseline, paired trial by trial; below 1.0 the candidate is lower (for every figure here, lower is better).`
    : model.single
      ? `A single target, <span class="key b"></span><b>${escapeHtml(model.single)}</b>: its figures, with nothing to compare them with (no ratios).`
      : "This run has no variants.";
  const guard = guardSummary(model);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>catchup-bench report</title>
<style>${assets.uplotCss}</style>
<style>${CSS}</style>
</head>
<body>
<main>
<h1>catchup-bench report</h1>
<p class="lead">${lead}</p>
${model.interrupted ? '<p class="banner">This run was interrupted: the tables hold only the trials that finished.</p>' : ""}
${model.loadWarning ? `<p class="banner">${escapeHtml(model.loadWarning)}</p>` : ""}
${guard ? `<p class="banner guard">${escapeHtml(guard)}</p>` : ""}
${verdictsHtml(model)}
<h2>Latency: subscribe to completion marker</h2>
${latencyHtml(model)}
<div class="grid">${latencyCharts.map(figure).join("\n")}</div>
<p class="note">Dots: each trial's completion time; dashed lines: the medians.${r ? " The ratio is the median of the per-trial paired ratios with its 95% bootstrap interval; with fewer than 8 pairs that interval is too narrow, so read it as indicative only." : ""}</p>
<h2>Memory: server heap and RSS per cell</h2>
${memoryHtml(model)}
<div class="grid">${memoryFigures(memoryCharts).join("\n")}</div>
<p class="note">Solid: heap used; dashed: RSS; dots: heap after a forced GC; vertical marks: phases (connect, first chunk, completion, hold end, close, GC). RSS is read from /proc on its own schedule; heap is asked of the server's inspector, which cannot answer while the server runs native code (a major GC, a large JSON.stringify, sync zlib or crypto): a break in a heap line is such a stretch with no answer, left as a gap. Both variants' timelines start when their clients connect; the buttons above a chart pick the trial (round) it shows.</p>
<h2>Concurrent probe</h2>
${probeHtml(model)}
${leakHtml(model.leak, r, escapeHtml)}
${stormHtml(model.storm, r, escapeHtml, model.stormVerdicts)}
${failures}
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
`;
}
