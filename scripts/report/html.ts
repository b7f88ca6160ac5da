// The report model + chart data -> report.html (pure string). One self-contained file: uPlot's code and
// CSS are inlined (passed in by the caller, read from node_modules at render time), the data is inline
// JSON, and a Content-Security-Policy of default-src 'none' forbids any network request when opened.
import type { Chart } from "./charts.js";
import { arrow, mib, ms, size } from "./format.js";
import { latencyCells, pairedCells, probeCells } from "./markdown.js";
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
  if (!model.roles || model.memory.length === 0) return "<p>No memory cells in this run.</p>";
  const p = (x: { baseline: number | null; candidate: number | null }, d = 1) =>
    arrow(mib(x.baseline, d), mib(x.candidate, d));
  const iv = (x: { median: number; p99: number; max: number } | null) =>
    x ? `${ms(x.median)} / ${ms(x.p99)} / ${ms(x.max)}` : "n/a";
  return table(
    [
      "script size / subscriptions",
      "mode",
      "peak heap (MiB)",
      "peak RSS (MiB)",
      "post-GC heap (MiB)",
      "retained heap (MiB)",
      "VmHWM (MiB)",
      "MiB through completion",
      "sample interval median / p99 / max (ms)",
    ],
    model.memory.map((m) => [
      `${size(m.scriptBytes)} / ${m.clients}`,
      m.mode,
      p(m.peakHeapBytes),
      p(m.peakRssBytes),
      p(m.postGcHeapBytes),
      p(m.retainedHeapBytes, 2),
      p(m.hwmRssBytes),
      p(m.bytesThroughCompletion, 2),
      `${iv(m.interval.baseline)} → ${iv(m.interval.candidate)}`,
    ]),
    "num",
  );
}

function probeHtml(model: ReportModel): string {
  const c = probeCells(model);
  return c ? table(c.header, c.rows, "num") : "<p>No probe figures.</p>";
}

function pairedHtml(model: ReportModel): string {
  const c = pairedCells(model);
  return c ? table(c.header, c.rows, "num") : "<p>No paired figures.</p>";
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
    return { label: label, stroke: color, width: width || 1.5, dash: dash, spanGaps: true,
      points: { show: false }, value: function (u, v) { return fmt(v, 2); } };
  }
  // Phase marks: a dotted vertical line per phase, labels written horizontally in staggered rows
  // (baseline along the top, candidate along the bottom) so neighbouring marks stay readable.
  function phasePlugin(phases) {
    return { hooks: { draw: function (u) {
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height, px = devicePixelRatio || 1;
      var rows = [0, 0];
      ctx.save();
      ctx.font = Math.round(9.5 * px) + "px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      phases.forEach(function (p) {
        var x = Math.round(u.valToPos(p.t, "x", true));
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        var color = p.variant === 0 ? "rgba(31,119,180," : "rgba(217,95,2,";
        ctx.strokeStyle = color + "0.45)";
        ctx.setLineDash([2 * px, 3 * px]);
        ctx.lineWidth = px;
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
        var row = rows[p.variant]++ % 3;
        var y = p.variant === 0 ? top + (8 + row * 12) * px : top + h - (8 + row * 12) * px;
        // A thin white halo keeps the label legible without hiding the lines under it.
        ctx.setLineDash([]);
        ctx.lineWidth = 2.5 * px;
        ctx.strokeStyle = "rgba(255,255,255,0.9)";
        ctx.strokeText(p.phase, x + 3 * px, y);
        ctx.fillStyle = color + "1)";
        ctx.fillText(p.phase, x + 3 * px, y);
      });
      ctx.restore();
    } } };
  }
  function width(el) { return Math.max(360, Math.floor(el.clientWidth - 4)); }
  data.charts.forEach(function (c) {
    var el = document.getElementById(c.id);
    try {
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
      } else {
        opts = { width: width(el), height: 320, legend: { show: false },
          scales: { x: { time: false }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.1]; } } },
          axes: [ { label: "ms since clients connect" }, { label: "MiB", size: 60 } ],
          series: [ { label: "ms" },
                    line(c.names[0] + " heap", B, undefined, 2), line(c.names[0] + " RSS", B, [8, 3], 1.5),
                    points(c.names[0] + " post-GC heap", B),
                    line(c.names[1] + " heap", C, undefined, 2), line(c.names[1] + " RSS", C, [8, 3], 1.5),
                    points(c.names[1] + " post-GC heap", C) ],
          plugins: [ phasePlugin(c.phases) ] };
      }
      window.__charts.push(new uPlot(opts, c.data, el));
    } catch (e) {
      window.__chartErrors.push(c.id + ": " + e);
      console.error("chart " + c.id + " failed: " + e);
    }
  });
})();
`;

function legend(c: Chart): string {
  const [b, d] = c.names.map(escapeHtml);
  const items =
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
  return `<div class="legend">${items.map((i) => `<span>${i}</span>`).join("")}</div>`;
}

function figure(c: Chart): string {
  const missing =
    c.kind === "memory" && c.missing.length > 0 ? `<div class="missing">${escapeHtml(c.missing.join("; "))}</div>` : "";
  return `<figure><figcaption>${escapeHtml(c.title)}</figcaption>${missing}<div class="chart" id="${c.id}"></div>${legend(c)}</figure>`;
}

/** The whole report.html. */
export function renderHtml(model: ReportModel, charts: Chart[], assets: HtmlAssets): string {
  const r = model.roles;
  const latencyCharts = charts.filter((c) => c.kind === "latency");
  const memoryCharts = charts.filter((c) => c.kind === "memory");
  const failures =
    model.failures.length > 0
      ? `<h2>Failed trials</h2><ul class="failures">${model.failures
          .map((f) => `<li>${escapeHtml(f.what)}: ${escapeHtml(f.error)}</li>`)
          .join("")}</ul>`
      : "";
  const lead = r
    ? `Baseline <span class="key b"></span><b>${escapeHtml(r.baseline)}</b>, candidate <span class="key c"></span><b>${escapeHtml(r.candidate)}</b>. Ratios are candidate / baseline, paired trial by trial; below 1.0 the candidate is lower (for every figure here, lower is better).`
    : "This run has fewer than two variants: there is nothing to compare.";
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
<h2>Paired statistics</h2>
${pairedHtml(model)}
<p class="note">Pairs: trial i of the baseline with trial i of the candidate in the same case or memory cell. Interval: seeded, smoothed percentile bootstrap of the median ratio. A difference whose interval spans 1.0${model.hasAa ? ", or whose median lies inside the A/A band," : ""} is reported as "no difference detected" and not ranked.</p>
<h2>Latency: subscribe to completion marker</h2>
${latencyHtml(model)}
<div class="grid">${latencyCharts.map(figure).join("\n")}</div>
<p class="note">Dots: each trial's completion time; dashed lines: the medians. The ratio is the median of the per-trial paired ratios with its 95% bootstrap interval; with fewer than 8 pairs that interval is too narrow, so read it as indicative only.</p>
<h2>Memory: server heap and RSS per cell</h2>
${memoryHtml(model)}
<div class="grid">${memoryCharts.map(figure).join("\n")}</div>
<p class="note">Solid: heap used; dashed: RSS; dots: heap after a forced GC; vertical marks: phases (connect, first chunk, completion, hold end, close, GC). Both variants' timelines start when their clients connect; each shows the first ok trial of its variant.</p>
<h2>Concurrent probe</h2>
${probeHtml(model)}
${failures}
<h2>Environment</h2>
<p>${escapeHtml(model.environment)}</p>
<p>${escapeHtml(model.notMeasured)}</p>
${model.variantDescriptions.length > 0 ? `<p class="note">Variants: ${escapeHtml(model.variantDescriptions.join("; "))}.</p>` : ""}
</main>
<script type="application/json" id="report-data">${scriptJson({ charts })}</script>
<script>${scriptText(assets.uplotJs)}</script>
<script>${scriptText(CHART_JS)}</script>
</body>
</html>
`;
}
