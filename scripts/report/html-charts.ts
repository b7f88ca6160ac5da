// The charts of report.html: their figure markup and the script that draws them with uPlot in the page.
// Memory charts draw every trial faint and one trial per variant bold (the median by peak heap, or the
// one picked), mark the bold trials' peaks with their value in a margin right of the plot, and put the
// phase labels in a lane above the plot: no label is drawn over the data or over another label.
// Labels are DOM elements (not canvas text), so a browser test can measure them.

import type { Chart, MemoryChart } from "./charts.js";
import { RSS_SPLIT_CHART_JS } from "./rss-split-chart.js";
import { STORM_CHART_JS } from "./storm-section.js";

type Escape = (text: string) => string;

/** The script run in the page: one uPlot per chart (data from the #report-data JSON). */
export const CHART_JS = `
(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var B = "#1f77b4", C = "#d95f02", RGB = ["31,119,180", "217,95,2"];
  // Phases of one variant closer than MERGE_PX share a label (completion and close are one hold apart).
  var MERGE_PX = 6, LANE_ROWS = 3, ROW_H = 14, TICK_H = 6, LANE_H = LANE_ROWS * ROW_H + TICK_H + 2, GUTTER = 118;
  // The phases named in the lane; the others (baseline, hold-end, gc, ...) get a tick with a tooltip.
  var NAMED = { connect: "connect", "first-chunk": "first chunk", completion: "completion", close: "close" };
  window.__charts = [];
  window.__chartErrors = [];
  function fmt(v, d) { return v == null ? "-" : v.toFixed(d); }
  function rgba(v, a) { return "rgba(" + RGB[v] + "," + a + ")"; }
  function points(label, color, fill, size) {
    return { label: label, stroke: color, fill: fill, width: 1.5, paths: function () { return null; },
      points: { show: true, size: size || 9, width: 1.5, stroke: color, fill: fill }, value: function (u, v) { return fmt(v, 1); } };
  }
  function line(label, color, dash, width) {
    return { label: label, stroke: color, width: width || 1.5, dash: dash, spanGaps: false,
      points: { show: false }, value: function (u, v) { return fmt(v, 2); } };
  }
  // Per timer (in the data's order) its points per variant, then per timer its median lines: a dot
  // is filled, a ring white inside; a dashed or dotted median line.
  function latencySeries(c) {
    var series = [{ label: "trial" }], DASH = { dash: [6, 4], dotted: [1, 3] };
    c.timers.forEach(function (t) {
      series.push(points(c.names[0] + " " + t.name, B, t.point === "dot" ? B : "#fff", t.point === "dot" ? 9 : 8),
                  points(c.names[1] + " " + t.name, C, t.point === "dot" ? C : "#fff", t.point === "dot" ? 9 : 8));
    });
    c.timers.forEach(function (t) {
      series.push(line(c.names[0] + " " + t.name + " median", B, DASH[t.median]),
                  line(c.names[1] + " " + t.name + " median", C, DASH[t.median]));
    });
    return series;
  }
  function width(el) { return Math.max(360, Math.floor(el.clientWidth - 4)); }
  function el(tag, cls, text, css) {
    var e = document.createElement(tag);
    e.className = cls;
    if (text != null) e.textContent = text;
    if (css) Object.keys(css).forEach(function (k) { e.style[k] = css[k]; });
    return e;
  }

  // ---- memory charts ----
  function isBold(c, t, pick) { return pick === "median" ? t.trial === c.medianTrial[t.variant] : t.trial === Number(pick); }
  // All timelines on one x axis (uPlot's aligned columns): undefined where a timeline has no value at
  // an x (the line joins across), null at a heap break (the line stops: a gap is drawn as a gap).
  function memoryPlot(c, pick) {
    var order = c.timelines.slice().sort(function (a, b) { return (isBold(c, a, pick) ? 1 : 0) - (isBold(c, b, pick) ? 1 : 0); });
    var seen = {}, xs = [];
    function addX(x) { if (!seen.hasOwnProperty(x)) { seen[x] = true; xs.push(x); } }
    order.forEach(function (t) { t.heap[0].forEach(addX); t.rss[0].forEach(addX); t.gc.forEach(function (p) { addX(p[0]); }); });
    xs.sort(function (a, b) { return a - b; });
    var at = {};
    xs.forEach(function (x, i) { at[x] = i; });
    var cols = [xs], series = [{ label: "ms" }], bold = [];
    order.forEach(function (t) {
      var strong = isBold(c, t, pick), a = strong ? 1 : 0.22, name = c.names[t.variant] + " trial " + t.trial;
      var heap = new Array(xs.length), rss = new Array(xs.length), gc = new Array(xs.length);
      t.heap[0].forEach(function (x, i) { heap[at[x]] = t.heap[1][i]; });
      t.rss[0].forEach(function (x, i) { rss[at[x]] = t.rss[1][i]; });
      t.gc.forEach(function (p) { gc[at[p[0]]] = p[1]; });
      cols.push(heap, rss, gc);
      series.push(line(name + " heap", rgba(t.variant, a), undefined, strong ? 2 : 1),
                  line(name + " RSS", rgba(t.variant, a), [8, 3], strong ? 1.5 : 1),
                  points(name + " post-GC heap", rgba(t.variant, a), rgba(t.variant, a), strong ? 8 : 5));
      if (strong) bold.push(t);
    });
    return { data: cols, series: series, bold: bold };
  }
  // The lane above the plot: a tick per phase of each bold trial; the named phases also get a label,
  // laid out greedily in the first row where it clears the label before it (a label with no free row
  // is left out: its tick and tooltip stay). Labels of one variant at about one x are merged ("first
  // chunk, completion"); "connect" is x = 0 for every variant and is labelled once.
  function drawLane(u, c, bold, layer) {
    var left = u.bbox.left / devicePixelRatio, top = u.bbox.top / devicePixelRatio, w = u.bbox.width / devicePixelRatio;
    var base = top - 3, marks = [];
    bold.forEach(function (t) {
      t.phases.forEach(function (p) {
        var x = u.valToPos(p.t, "x");
        if (x < -0.5 || x > w + 0.5) return;
        var tip = c.names[t.variant] + " trial " + t.trial + ": " + p.phase + " at " + p.t.toFixed(0) + " ms";
        layer.appendChild(el("span", "phase-tick", null, { left: (left + x) + "px", top: (base - TICK_H) + "px",
          height: TICK_H + "px", background: rgba(t.variant, 0.9) })).title = tip;
        if (NAMED[p.phase]) marks.push({ x: x, text: NAMED[p.phase], variant: p.phase === "connect" && bold.length > 1 ? -1 : t.variant, tip: tip });
      });
    });
    marks.sort(function (a, b) { return a.x - b.x || a.variant - b.variant; });
    var merged = [];
    marks.forEach(function (m) {
      var same = merged.filter(function (o) { return o.variant === m.variant && Math.abs(o.x - m.x) < MERGE_PX; })[0];
      if (!same) merged.push(m);
      else if (same.text.indexOf(m.text) < 0) { same.text += ", " + m.text; same.tip += "; " + m.tip; }
    });
    var ends = [];
    merged.forEach(function (m) {
      var label = el("span", "chart-label phase-label", m.text, { color: m.variant < 0 ? "#444" : rgba(m.variant, 1),
        borderColor: m.variant < 0 ? "#444" : rgba(m.variant, 1) });
      label.title = m.tip;
      label.setAttribute("data-variant", String(m.variant));
      layer.appendChild(label);
      var lw = label.offsetWidth;
      // Starts at its tick; ends at it when it would run past the plot's right edge.
      var x0 = Math.max(0, m.x + lw > w ? m.x - lw : m.x);
      var row = -1;
      for (var r = 0; r < LANE_ROWS; r++) { if (ends[r] === undefined || x0 >= ends[r] + 4) { row = r; break; } }
      if (row < 0) { layer.removeChild(label); return; }
      ends[row] = x0 + lw;
      if (m.x + lw > w) label.classList.add("end");
      label.style.left = (left + x0) + "px";
      label.style.top = (base - TICK_H - (row + 1) * ROW_H) + "px";
    });
  }
  // The margin right of the plot: each bold trial's peak heap and peak RSS with its value, at the
  // peak's height (pushed apart so no two overlap), joined to a ring on the peak by a dotted leader.
  function drawPeaks(u, c, bold, layer) {
    var px = devicePixelRatio || 1, left = u.bbox.left / px, top = u.bbox.top / px;
    var w = u.bbox.width / px, h = u.bbox.height / px, peaks = [];
    bold.forEach(function (t) {
      [["heap", t.peakHeap], ["RSS", t.peakRss]].forEach(function (k) {
        if (!k[1]) return;
        peaks.push({ v: t.variant, what: k[0], x: u.valToPos(k[1][0], "x"), y: u.valToPos(k[1][1], "y"), mib: k[1][1],
          tip: c.names[t.variant] + " trial " + t.trial + ": peak " + k[0] + " " + k[1][1].toFixed(1) + " MiB at " + k[1][0].toFixed(0) + " ms" });
      });
    });
    peaks.sort(function (a, b) { return a.y - b.y; });
    var labels = peaks.map(function (p) {
      var label = el("span", "chart-label peak-label", "peak " + p.what + " " + p.mib.toFixed(1), { color: rgba(p.v, 1) });
      label.title = p.tip;
      label.setAttribute("data-variant", String(p.v));
      label.setAttribute("data-peak", p.what);
      layer.appendChild(label);
      return label;
    });
    var ys = [], lh = ROW_H;
    peaks.forEach(function (p, i) { ys[i] = Math.max(p.y - lh / 2, i > 0 ? ys[i - 1] + lh : -lh / 2); });
    for (var i = ys.length - 1; i >= 0; i--) ys[i] = Math.min(ys[i], (i < ys.length - 1 ? ys[i + 1] - lh : h - lh / 2));
    var ctx = u.ctx;
    ctx.save();
    peaks.forEach(function (p, i) {
      labels[i].style.left = (left + w + 10) + "px";
      labels[i].style.top = (top + ys[i]) + "px";
      ctx.strokeStyle = rgba(p.v, 0.85);
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash([]);
      ctx.beginPath(); ctx.arc((left + p.x) * px, (top + p.y) * px, 5 * px, 0, 2 * Math.PI); ctx.stroke();
      ctx.lineWidth = px;
      ctx.setLineDash([1 * px, 3 * px]);
      ctx.beginPath();
      ctx.moveTo((left + p.x + 5) * px, (top + p.y) * px);
      ctx.lineTo((left + w + 2) * px, (top + p.y) * px);
      ctx.lineTo((left + w + 8) * px, (top + ys[i] + lh / 2) * px);
      ctx.stroke();
    });
    ctx.restore();
  }
  // Faint dotted lines through the plot at the bold trials' named phases, under the series.
  function drawPhaseLines(u, c, bold) {
    var px = devicePixelRatio || 1, ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.setLineDash([2 * px, 4 * px]);
    ctx.lineWidth = px;
    bold.forEach(function (t) {
      t.phases.forEach(function (p) {
        if (!NAMED[p.phase]) return;
        var x = Math.round(u.valToPos(p.t, "x", true));
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.strokeStyle = rgba(t.variant, 0.35);
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
      });
    });
    ctx.restore();
  }
  function memoryOpts(c, el, pick, built) {
    var layer = null;
    return { width: width(el), height: 320 + LANE_H, legend: { show: false }, padding: [LANE_H, GUTTER, null, null],
      scales: { x: { time: false }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.1]; } } },
      axes: [ { label: "ms since clients connect" }, { label: "MiB", size: 60 } ],
      series: built.series,
      hooks: {
        drawClear: [ function (u) { drawPhaseLines(u, c, built.bold); } ],
        draw: [ function (u) {
          if (layer) layer.remove();
          layer = document.createElement("div");
          layer.className = "chart-labels";
          u.over.parentNode.appendChild(layer);
          drawLane(u, c, built.bold, layer);
          drawPeaks(u, c, built.bold, layer);
        } ] } };
  }

  function draw(c, el, pick) {
    var opts;
    if (c.kind === "latency") {
      var xs = c.data[0];
      var lo = xs.length ? xs[0] - 0.5 : 0, hi = xs.length ? xs[xs.length - 1] + 0.5 : 1;
      opts = { width: width(el), height: 260, legend: { show: false },
        scales: { x: { time: false, range: [lo, hi] }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.15]; } } },
        axes: [ { label: "trial", incrs: [1], values: function (u, v) { return v.map(function (x) { return x; }); } },
                { label: "ms", size: 60 } ],
        series: latencySeries(c) };
${STORM_CHART_JS}
${RSS_SPLIT_CHART_JS}
    } else if (c.kind === "leak") {
      var K = c.role === 0 ? B : C;
      opts = { width: width(el), height: 260, legend: { show: false },
        scales: { x: { time: false }, y: { range: function (u, mn, mx) { var pad = (mx - mn) * 0.15 || 0.5; return [mn - pad, mx + pad]; } } },
        axes: [ { label: "cycle" }, { label: "MiB", size: 60 } ],
        series: [ { label: "cycle" }, points("warm-up", "#999999", "#999999"), points(c.name + " post-GC heap", K, K),
                  line("Theil-Sen fit", K, [6, 4], 2) ] };
    } else {
      var built = memoryPlot(c, pick || "median");
      return new uPlot(memoryOpts(c, el, pick, built), built.data, el);
    }
    return new uPlot(opts, c.data, el);
  }
  var plots = {}, byId = {};
  data.charts.forEach(function (c) {
    byId[c.id] = c;
    var el = document.getElementById(c.id);
    try {
      plots[c.id] = draw(c, el);
      window.__charts.push(plots[c.id]);
    } catch (e) {
      window.__chartErrors.push(c.id + ": " + e);
      console.error("chart " + c.id + " failed: " + e);
    }
  });
  // The buttons above a memory chart make another trial (or the median) the bold one.
  document.querySelectorAll(".trials button").forEach(function (b) {
    b.addEventListener("click", function () {
      var id = b.getAttribute("data-chart"), el = document.getElementById(id), c = byId[id];
      if (!c || !el) return;
      try {
        var old = plots[id];
        var plot = draw(c, el, b.getAttribute("data-pick"));
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

/**
 * The chart's own legend under it: a colour key per variant, then the line and marker styles in
 * grey (a single target: only its own, baseline-coloured, key).
 */
function legend(c: Chart, esc: Escape): string {
  const single = c.names[0] === c.names[1];
  const keys = (single ? [c.names[0]] : c.names).map(
    (n, i) => `<span class="key ${i === 0 ? "b" : "c"}"></span><b>${esc(n)}</b>`,
  );
  const styles =
    c.kind === "latency"
      ? [
          ...c.timers.map((t) => `<span class="sw ${t.point}"></span>${esc(t.name)}`),
          ...c.timers.map((t) => `<span class="sw ${t.median}"></span>median, ${esc(t.name)}`),
        ]
      : c.kind === "memory"
        ? [
            '<span class="sw solid"></span>heap',
            '<span class="sw dash"></span>RSS',
            '<span class="sw dot"></span>heap after forced GC',
            '<span class="sw ring"></span>peak of the bold trial',
          ]
        : [];
  return `<div class="legend">${[...keys, ...styles].map((i) => `<span class="legend-item">${i}</span>`).join("")}</div>`;
}

/** A latency (or storm, leak) figure: caption, chart, legend. */
export function chartFigure(c: Chart, esc: Escape): string {
  return `<figure><figcaption>${esc(c.title)}</figcaption><div class="chart" id="${esc(c.id)}"></div>${legend(c, esc)}</figure>`;
}

/** A memory cell's figure: the trial picker (the median first, selected), the chart, its legend. */
export function memoryFigure(c: MemoryChart, esc: Escape): string {
  const buttons =
    c.trials.length > 1
      ? `<div class="trials">bold trial: <button type="button" data-chart="${esc(c.id)}" data-pick="median" class="on">median</button>${c.trials
          .map((t) => `<button type="button" data-chart="${esc(c.id)}" data-pick="${t}">${t}</button>`)
          .join("")}</div>`
      : "";
  const note = c.missing.length > 0 ? `<div class="missing">${esc(c.missing.join("; "))}</div>` : "";
  return `<figure><figcaption>${esc(c.title)}</figcaption>${buttons}${note}<div class="chart" id="${esc(c.id)}"></div>${legend(c, esc)}</figure>`;
}

/** The CSS of the charts, their lanes, labels and legends. */
export const CHART_CSS = `
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 14px; margin-top: 10px; }
figure { margin: 0; border: 1px solid var(--rule); border-radius: 6px; padding: 8px; min-width: 0; }
figcaption { font-size: 12.5px; font-weight: 600; margin-bottom: 4px; }
figure .missing { color: #a33; font-size: 12px; }
.legend { font-size: 12px; color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 2px 6px; }
.legend .key { margin: 0 4px 0 0; }
.sw { display: inline-block; width: 18px; height: 0; margin-right: 5px; vertical-align: middle; color: #6b7380; }
.sw.solid { border-top: 2.5px solid; } .sw.dash { border-top: 2px dashed; } .sw.dotted { border-top: 2px dotted; }
.sw.dot, .sw.ring { width: 9px; height: 9px; border-radius: 50%; }
.sw.dot { background: currentColor; } .sw.ring { border: 1.5px solid currentColor; }
.sw.b { color: var(--b); } .sw.c { color: var(--c); }
.trials { font-size: 12px; color: var(--muted); margin: 2px 0 4px; }
.trials button { font: inherit; margin-left: 4px; padding: 1px 8px; border: 1px solid var(--rule); background: #fff; border-radius: 4px; cursor: pointer; }
.trials button.on { background: var(--ink); color: #fff; border-color: var(--ink); }
.chart-labels { position: absolute; left: 0; top: 0; width: 0; height: 0; }
.chart-label { position: absolute; white-space: nowrap; font-size: 11px; line-height: 14px; height: 14px; }
.phase-label { border-left: 1.5px solid; padding-left: 3px; }
.phase-label.end { border-left: 0; border-right: 1.5px solid; padding: 0 3px 0 0; }
.phase-tick { position: absolute; width: 1.5px; }
.peak-label { font-variant-numeric: tabular-nums; }
`;
