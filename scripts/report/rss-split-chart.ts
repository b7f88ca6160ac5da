// The RSS split over time in report.html (pure data + the page's drawing branch): per memory cell and
// variant, the bold (median) trial's heap-lane ticks as a stacked area, heap used at the bottom, then
// committed-but-unused heap, external and the remainder on top, whose upper edge is the RSS the
// target reported at that tick; array buffers (bytes allocated, not resident) as a dashed line. A stretch with no heap answer is a break, as in the
// heap line of the memory chart.
import { remainderOf } from "../results/rss-split-record.js";
import type { SampleLine } from "../results/schema.js";
import { size } from "../util/format.js";
import type { MemoryCellModel } from "./model.js";
import { SPLIT_COMPONENTS } from "./rss-split-section.js";

const MIB = 1024 * 1024;

export interface RssSplitChart {
  kind: "rss-split";
  id: string;
  title: string;
  /** The variant's name in both slots (the legend names one variant). */
  names: [string, string];
  /** 0 baseline, 1 candidate: the colour of its caption key. */
  role: 0 | 1;
  /** x (ms from clients connecting), the cumulative tops of the components bottom first, then array buffers (MiB). */
  data: (number | null)[][];
  /** The component labels, bottom first. */
  labels: string[];
}

type SplitLine = {
  t: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  tickRss: number;
};
const isSplit = (l: SampleLine): l is SampleLine & SplitLine =>
  "tickRss" in l && typeof l.tickRss === "number" && !("phase" in l);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Pure: a trial's split ticks as stacked columns; null when its samples carry no split. */
export function rssSplitChart(
  m: MemoryCellModel,
  variant: string,
  role: 0 | 1,
  trial: number,
  lines: SampleLine[],
  id: string,
): RssSplitChart | null {
  const ticks = lines.filter(isSplit);
  if (ticks.length === 0) return null;
  const connect = lines.find((l) => "phase" in l && l.phase === "connect");
  const t0 = connect ? connect.t : 0;
  const rows: [number, (number | null)[]][] = ticks.map((l) => {
    const parts = [l.heapUsed, l.heapTotal - l.heapUsed, l.external, remainderOf(l.tickRss, l.heapTotal, l.external)];
    const tops: number[] = [];
    let top = 0;
    for (const p of parts) {
      top += p;
      tops.push(r3(top / MIB));
    }
    return [r3(l.t - t0), [...tops, r3(l.arrayBuffers / MIB)]];
  });
  // A stretch with no heap answer: a null row in it stops every area there.
  for (const l of lines) {
    if ("heapGapMs" in l && typeof l.heapGapMs === "number")
      rows.push([r3(l.t - l.heapGapMs / 2 - t0), [...SPLIT_COMPONENTS.map(() => null), null]]);
  }
  rows.sort((a, b) => a[0] - b[0]);
  return {
    kind: "rss-split",
    id,
    title: `${size(m.scriptBytes)} scripts, ${m.clients} subscription${m.clients === 1 ? "" : "s"}, ${m.mode}, ${variant} trial ${trial}: RSS split (MiB, stacked) over time (ms from clients connecting)`,
    names: [variant, variant],
    role,
    data: [rows.map((r) => r[0]), ...[...SPLIT_COMPONENTS, null].map((_, i) => rows.map((r) => r[1][i] ?? null))],
    labels: SPLIT_COMPONENTS.map(([, label]) => label),
  };
}

/** Fill colours of the components, bottom first (heap in blues, external green, remainder grey). */
const COLOURS = ["#3b6fb6", "#9cbbe3", "#2e9e5b", "#c9c9c9"];

/** The page's drawing branch for "rss-split" charts (inserted into CHART_JS's chain of kinds). */
export const RSS_SPLIT_CHART_JS = `
    } else if (c.kind === "rss-split") {
      var FILL = ${JSON.stringify(COLOURS)}, ser = [ { label: "ms" } ];
      // Drawn top first: each area fills down to 0 and the next one below paints over it.
      for (var k = c.labels.length - 1; k >= 0; k--)
        ser.push({ label: c.labels[k], stroke: "#555", width: 0.5, fill: FILL[k], spanGaps: false, points: { show: false } });
      var cols = [c.data[0]];
      for (var k2 = c.labels.length; k2 >= 1; k2--) cols.push(c.data[k2]);
      ser.push({ label: "array buffers (allocated)", stroke: "#1d6b3c", width: 1.5, dash: [4, 3], spanGaps: false, points: { show: false } });
      cols.push(c.data[c.labels.length + 1]);
      return new uPlot({ width: width(el), height: 240, legend: { show: false },
        scales: { x: { time: false }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.1]; } } },
        axes: [ { label: "ms since clients connect" }, { label: "MiB", size: 60 } ], series: ser }, cols, el);`;

/** The figure: caption, chart, and a legend of the components. */
export function rssSplitFigure(c: RssSplitChart, esc: (s: string) => string): string {
  const keys = [
    `<span class="key ${c.role === 0 ? "b" : "c"}"></span><b>${esc(c.names[0])}</b>`,
    ...c.labels.map((l, i) => `<span class="sw" style="height:10px;background:${COLOURS[i]}"></span>${esc(l)}`),
    '<span class="sw dash" style="color:#1d6b3c"></span>array buffers (allocated, not stacked)',
  ];
  return `<figure><figcaption>${esc(c.title)}</figcaption><div class="chart" id="${esc(c.id)}"></div><div class="legend">${keys.map((k) => `<span class="legend-item">${k}</span>`).join("")}</div></figure>`;
}
