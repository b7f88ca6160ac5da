// history.html (pure string): one chart per series (a cell × metric × testbed × branch), the ratio to
// the anchor per commit with its interval as a band, change points and confirmed culprits marked,
// skipped points ringed, the anchor named. Self-contained like report.html: uPlot inlined, the data
// inline JSON, a Content-Security-Policy that forbids any request. Commit subjects are foreign text:
// they reach the page only as JSON data and textContent, never as markup.
import type { Detection } from "../verdicts/history-series.js";
import { type ConfirmationView, cellText, tallyText } from "./bisect-lines.js";
import { detectionHeadline } from "./history-alerts.js";
import { type HtmlAssets, pageHead, scriptJson, scriptText } from "./html.js";
import { escapeHtml, htmlTable } from "./markup.js";

export interface HistoryPageInput {
  detection: Detection;
  /** Testbed descriptions by id ("Intel … ×2, Node v20"). */
  testbeds: Readonly<Record<number, string>>;
  /** Commits a confirmation named as culprits (filled once runs confirm and bisect). */
  culprits?: readonly string[];
  /** Change points re-measured by `history confirm`, rejected ones too. */
  confirmations?: readonly ConfirmationView[];
  store: string;
  generatedAt: string;
}

const short = (sha: string) => sha.slice(0, 12);

/** The page's data: per series its points, band, change points and skipped points. */
function pageData(input: HistoryPageInput) {
  const culprits = new Set(input.culprits ?? []);
  return input.detection.series.map((d, i) => {
    const s = d.series;
    return {
      id: `series-${i}`,
      title: `${s.key.cell} · ${s.key.metric}`,
      sub: `${s.key.branch} · testbed ${s.key.testbedId} · ratio to anchor ${short(s.key.anchor)}${s.anchors.length > 1 ? ` (linked: ${s.anchors.slice(1).map(short).join(", ")})` : ""}`,
      commits: s.points.map((p) => p.commit.slice(0, 7)),
      ratio: s.points.map((p) => p.ratio),
      low: s.points.map((p) => p.low),
      high: s.points.map((p) => p.high),
      changes: d.changes.map((c) => ({
        index: c.index,
        label: `${short(c.commit)} ${c.magnitude >= 0 ? "+" : ""}${((Math.exp(c.magnitude) - 1) * 100).toFixed(1)}%`,
      })),
      skipped: d.skipped.map((k) => k.index),
      culprits: s.points.flatMap((p, j) => (culprits.has(p.commit) ? [j] : [])),
    };
  });
}

/** The page script: one uPlot per series, a band between low and high, marks drawn on the canvas. */
const HISTORY_JS = `
(function () {
  var data = JSON.parse(document.getElementById("history-data").textContent);
  window.__charts = []; window.__chartErrors = [];
  function marks(c) {
    return { hooks: { draw: [function (u) {
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      ctx.save();
      c.changes.forEach(function (m) {
        var x = u.valToPos(m.index - 0.5, "x", true);
        ctx.strokeStyle = "#c0392b"; ctx.lineWidth = 2; ctx.setLineDash([6, 4]);
        ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
      });
      ctx.setLineDash([]);
      c.culprits.forEach(function (i) {
        var x = u.valToPos(i, "x", true), y = u.valToPos(c.ratio[i], "y", true);
        ctx.fillStyle = "#c0392b"; ctx.beginPath(); ctx.arc(x, y, 7, 0, 2 * Math.PI); ctx.fill();
      });
      c.skipped.forEach(function (i) {
        var x = u.valToPos(i, "x", true), y = u.valToPos(c.ratio[i], "y", true);
        ctx.strokeStyle = "#888"; ctx.lineWidth = 1.5; ctx.beginPath(); ctx.arc(x, y, 8, 0, 2 * Math.PI); ctx.stroke();
      });
      ctx.restore();
    }] } };
  }
  data.series.forEach(function (c) {
    var el = document.getElementById(c.id);
    try {
      var xs = c.ratio.map(function (_, i) { return i; });
      var opts = {
        width: Math.max(360, el.clientWidth - 4), height: 220, legend: { show: false },
        scales: { x: { time: false } },
        axes: [
          { space: 64, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: function (u, vals) { return vals.map(function (v) { return c.commits[v] || ""; }); }, size: 40 },
          { label: "ratio to anchor", values: function (u, vals) { return vals.map(function (v) { return v.toFixed(2); }); } },
        ],
        series: [{}, { label: "low", stroke: "rgba(31,119,180,0.25)", points: { show: false } },
          { label: "high", stroke: "rgba(31,119,180,0.25)", points: { show: false } },
          { label: "ratio", stroke: "#1f77b4", width: 2, points: { show: true, size: 6 } }],
        bands: [{ series: [2, 1], fill: "rgba(31,119,180,0.15)" }],
        plugins: [marks(c)],
      };
      window.__charts.push(new uPlot(opts, [xs, c.low, c.high, c.ratio], el));
    } catch (e) { window.__chartErrors.push(c.id + ": " + e); }
  });
})();
`;

const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; color: #1d2430; margin: 0; background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; min-height: 100vh; overflow-wrap: anywhere; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 26px 0 2px; }
p.note { color: #5b6575; font-size: 12.5px; margin: 4px 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 18px; }
figure { margin: 0; } figcaption { font-weight: 600; } figcaption small { display: block; font-weight: 400; color: #5b6575; }
table { border-collapse: collapse; font-size: 13px; width: 100%; }
th, td { border-bottom: 1px solid #d8dde5; padding: 5px 8px; text-align: left; } th { background: #eef1f5; }
`;

function figure(c: ReturnType<typeof pageData>[number]): string {
  return `<figure data-changes="${c.changes.length}" data-points="${c.ratio.length}"><figcaption>${escapeHtml(c.title)}<small>${escapeHtml(c.sub)}</small></figcaption><div class="chart" id="${c.id}"></div></figure>`;
}

function alertsTable(d: Detection): string {
  const rows = d.alerts.flatMap((a) =>
    a.changes.map((c) => [
      short(a.commit),
      a.direction,
      a.triage?.state ?? "open",
      `${c.cell} · ${c.metric}`,
      `${c.before.toFixed(3)} → ${c.after.toFixed(3)}`,
      c.pValue.toFixed(3),
    ]),
  );
  return rows.length > 0
    ? htmlTable(["suspect commit", "alert", "triage", "series", "ratio to anchor", "p"], rows, "num")
    : "<p>No change points.</p>";
}

function confirmationsTable(list: readonly ConfirmationView[]): string {
  if (list.length === 0) return "<p>No change point re-measured yet (<code>history confirm</code>).</p>";
  const rows = list.map((c) => [
    short(c.commit),
    short(c.stable),
    c.outcome,
    String(c.pairs),
    c.cells.map((cell) => `${cell.outcome} ${cellText(cell)}`).join("; "),
    c.culprits && c.culprits.length > 0 ? c.culprits.map(short).join(", ") : "",
  ]);
  return `<p class="note" id="false-alarms">${escapeHtml(tallyText(list))}. Each: a paired run of the suspect against its last stable commit, median paired ratio with its 95% interval per cell that changed.</p>
${htmlTable(["suspect commit", "last stable", "outcome", "pairs", "cells", "culprit"], rows, "num")}`;
}

/** The whole history.html. */
export function renderHistoryHtml(input: HistoryPageInput, assets: HtmlAssets): string {
  const series = pageData(input);
  const testbeds = Object.entries(input.testbeds).map(([id, text]) => `testbed ${id}: ${text}`);
  return `${pageHead("catchup-bench history", assets, CSS)}
<body>
<main>
<h1>catchup-bench history</h1>
<p class="note">${escapeHtml(detectionHeadline(input.detection))}. Store ${escapeHtml(input.store)}, ${escapeHtml(input.generatedAt)}.</p>
<p class="note">Each chart is one series: per commit (first-parent order), the median paired ratio to the anchor named under its title, with its 95% interval as a band. Dashed red lines: change points (the first commit of the new level is right of the line); filled red dots: confirmed culprits; grey rings: points skipped by detection for an interval far wider than the series' own.</p>
${testbeds.map((t) => `<p class="note">${escapeHtml(t)}</p>`).join("\n")}
<h2>Alerts: one per suspect commit</h2>
${alertsTable(input.detection)}
<h2>Confirmations</h2>
${confirmationsTable(input.confirmations ?? [])}
<h2>Series</h2>
<div class="grid">${series.map(figure).join("\n")}</div>
</main>
<script type="application/json" id="history-data">${scriptJson({ series })}</script>
<script>${scriptText(assets.uplotJs)}</script>
<script>${HISTORY_JS}</script>
</body>
</html>
`;
}
