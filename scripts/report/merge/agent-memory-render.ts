// The server-memory part of a merged k6 report (agent-memory.ts), in Markdown and in HTML
// with a static SVG timeline: RSS and heap over the whole test, the run's phase marks, forced GCs.
// Every cell is inert (markup.ts); the timeline keeps each pixel column's lowest and highest sample,
// so no peak is thinned away. Pure.
import { mib, ms } from "../../util/format.js";
import { maxValue, minValue } from "../../util/stats.js";
import { escapeHtml, htmlTable, mdTable, mdText } from "../markup.js";
import type { AgentMemory, MergedMemory, PhaseOnTimeline } from "./agent-memory.js";

const s = (tMs: number) => (tMs / 1000).toFixed(3);
const mb = (v: number | null) => (v === null ? "n/a" : mib(v));

function figuresRows(m: MergedMemory): string[][] {
  return m.agents.map((a) => {
    const f = a.figures;
    const iv = f.rssInterval;
    return [
      a.source,
      a.host ?? "?",
      String(a.pid ?? "?"),
      mb(f.peakHeapBytes),
      mb(f.peakRssBytes),
      mb(f.hwmRssBytes),
      mb(f.postGcHeapBytes),
      f.cpuMs === null ? "n/a" : String(Math.round(f.cpuMs)),
      (f.durationMs / 1000).toFixed(1),
      iv ? `${ms(iv.median, 2)} / ${ms(iv.p99, 2)} / ${ms(iv.max, 2)}` : "n/a",
    ];
  });
}

const FIGURES_HEADER = [
  "agent samples",
  "host",
  "pid",
  "peak heap (MiB, max)",
  "peak RSS (MiB, max)",
  "VmHWM (MiB, kernel peak)",
  "post-GC heap (MiB, last GC)",
  "server CPU (ms, total)",
  "sampled (s)",
  "RSS interval ms (median / p99 / max)",
];

function phaseRows(a: AgentMemory): string[][] {
  const rows = (who: string, phases: readonly PhaseOnTimeline[]) =>
    phases.map((p) => [p.phase, who, s(p.first), s(p.last), String(p.count)]);
  return [...rows("all runners", a.phases), ...a.runnerPhases.flatMap((r) => rows(r.source, r.phases))];
}
const PHASE_HEADER = ["phase", "runner", "first (s)", "last (s)", "sessions"];

function windowRows(a: AgentMemory): string[][] {
  return a.windows.map((w) => [
    w.label,
    s(w.from),
    s(w.to),
    mb(w.peakHeapBytes),
    mb(w.peakRssBytes),
    String(w.rssSamples),
  ]);
}
const WINDOW_HEADER = ["window", "from (s)", "to (s)", "peak heap (MiB, max)", "peak RSS (MiB, max)", "RSS samples"];

/** The memory section in Markdown. */
export function renderMemoryMarkdown(m: MergedMemory): string {
  const out: string[] = ["## Server memory (sampling agent)", ""];
  for (const n of m.notes) out.push(`> ${mdText(n)}`, "");
  out.push(...mdTable(FIGURES_HEADER, figuresRows(m)), "");
  for (const a of m.agents) {
    out.push(`### Phase marks on ${mdText(a.source)} (s since the agent started)`, "");
    out.push(...(a.phases.length ? mdTable(PHASE_HEADER, phaseRows(a)) : ["No phase marks."]), "");
    out.push(`### Peaks per phase window, ${mdText(a.source)}`, "");
    out.push(...mdTable(WINDOW_HEADER, windowRows(a)), "");
  }
  return out.join("\n");
}

/** Thins [t, v] points to each pixel column's first, lowest, highest and last point, in time order. */
function thin(points: ReadonlyArray<readonly [number, number]>, x: (t: number) => number): Array<[number, number]> {
  const cols = new Map<number, Array<readonly [number, number]>>();
  for (const p of points) {
    const c = Math.round(x(p[0]));
    const col = cols.get(c);
    if (col) col.push(p);
    else cols.set(c, [p]);
  }
  const out: Array<[number, number]> = [];
  for (const col of cols.values()) {
    let lo = col[0] as readonly [number, number];
    let hi = lo;
    for (const p of col) {
      if (p[1] < lo[1]) lo = p;
      if (p[1] > hi[1]) hi = p;
    }
    const keep = new Set([col[0], lo, hi, col.at(-1)]);
    for (const p of col) if (keep.has(p)) out.push([p[0], p[1]]);
  }
  return out;
}

const W = 960;
const H = 320;
const PAD = { left: 56, right: 16, top: 16, bottom: 36 };

const MIB = 1048576;

/** The points in runs, a new run starting at each point whose t is in `starts`. */
function splitAt(
  pts: ReadonlyArray<readonly [number, number]>,
  starts: ReadonlySet<number>,
): Array<Array<readonly [number, number]>> {
  const runs: Array<Array<readonly [number, number]>> = [];
  for (const p of pts) {
    const run = runs.at(-1);
    if (!run || starts.has(p[0])) runs.push([p]);
    else run.push(p);
  }
  return runs;
}

/** One agent's timeline as an SVG: RSS and heap (series in MiB) against seconds since the agent started. */
export function timelineSvg(
  a: AgentMemory,
  rss: ReadonlyArray<readonly [number, number]>,
  heap: ReadonlyArray<readonly [number, number]>,
  /** When each heap gap ended (its answer's t): the heap line breaks there, never joined across. */
  heapGapEnds: ReadonlySet<number> = new Set(),
): string {
  // The post-GC heap of --gc-at-end comes after the last sample: the axis runs to it.
  const ts = [
    ...rss.map((p) => p[0]),
    ...heap.map((p) => p[0]),
    ...a.gc.filter((g) => g.heapUsed !== null).map((g) => g.t),
  ];
  // No spread into Math.min/max: an hour at 10 ms is 360,000 samples a lane.
  const t0 = ts.length ? minValue(ts) : 0;
  const t1 = ts.length ? Math.max(maxValue(ts), t0 + 1) : 1;
  const vMax = maxValue([1, ...rss.map((p) => p[1]), ...heap.map((p) => p[1])]);
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * (W - PAD.left - PAD.right);
  const y = (v: number) => H - PAD.bottom - (v / vMax) * (H - PAD.top - PAD.bottom);
  const line = (pts: ReadonlyArray<readonly [number, number]>, cls: string) =>
    pts.length
      ? `<polyline class="${cls}" fill="none" points="${thin(pts, x)
          .map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`)
          .join(" ")}"/>`
      : "";
  // First session (dashed) and last session (dotted) at each phase; labels staggered so neighbours stay readable.
  const edges = a.phases.flatMap((p) => [
    { label: p.phase, which: "first", t: p.first },
    { label: `${p.phase} (last)`, which: "last", t: p.last },
  ]);
  const marks = edges.map(
    (e) =>
      `<line class="mark ${e.which}" x1="${x(e.t).toFixed(1)}" x2="${x(e.t).toFixed(1)}" y1="${PAD.top}" y2="${H - PAD.bottom}"><title>${escapeHtml(`${e.label} at ${s(e.t)} s`)}</title></line>`,
  );
  // Each label in the first row where it clears the one before (about 6 px a character at 10 px).
  const rowEnds: number[] = [];
  const labels = [...edges]
    .sort((p, q) => p.t - q.t)
    .map((e) => {
      const x0 = x(e.t) + 2;
      let row = rowEnds.findIndex((end) => end < x0);
      if (row === -1) row = rowEnds.push(0) - 1;
      rowEnds[row] = x0 + e.label.length * 6;
      return `<text class="mark-label" x="${x0.toFixed(1)}" y="${PAD.top + 10 + row * 11}">${escapeHtml(e.label)}</text>`;
    });
  const gcs = a.gc
    .filter((g) => g.heapUsed !== null && g.t >= t0 && g.t <= t1)
    .map(
      (g) =>
        `<circle class="gc" cx="${x(g.t).toFixed(1)}" cy="${y((g.heapUsed as number) / MIB).toFixed(1)}" r="4"><title>${escapeHtml(`post-GC heap ${mib(g.heapUsed)} MiB (${g.reason})`)}</title></circle>`,
    );
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = f * vMax;
    const tt = t0 + f * (t1 - t0);
    return (
      `<text class="tick" x="${PAD.left - 4}" y="${y(v).toFixed(1)}" text-anchor="end">${v.toFixed(0)}</text>` +
      `<text class="tick" x="${x(tt).toFixed(1)}" y="${H - PAD.bottom + 14}" text-anchor="middle">${s(tt)}</text>`
    );
  });
  return [
    `<svg class="timeline" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(`memory timeline of ${a.source}`)}">`,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}" class="frame"/>`,
    ...ticks,
    `<text class="axis" x="${W / 2}" y="${H - 4}" text-anchor="middle">s since the agent started</text>`,
    `<text class="axis" x="12" y="${H / 2}" transform="rotate(-90 12 ${H / 2})" text-anchor="middle">MiB</text>`,
    ...marks,
    line(rss, "rss"),
    ...splitAt(heap, heapGapEnds).map((part) => line(part, "heap")),
    ...gcs,
    ...labels,
    "</svg>",
  ].join("\n");
}

export const MEMORY_CSS = `
svg.timeline { background: #fff; border: 1px solid #ddd; }
svg.timeline .frame { fill: none; stroke: #ccc; }
svg.timeline .rss { stroke: #1f77b4; stroke-width: 1.5; }
svg.timeline .heap { stroke: #ff7f0e; stroke-width: 1.5; }
svg.timeline .mark { stroke: #888; stroke-dasharray: 5 3; }
svg.timeline .mark.last { stroke: #aaa; stroke-dasharray: 1 2; }
svg.timeline .mark-label { font: 10px sans-serif; fill: #555; }
svg.timeline .gc { fill: #2ca02c; }
svg.timeline .tick, svg.timeline .axis { font: 11px sans-serif; fill: #333; }
.legend span { display: inline-block; margin-right: 1em; }
.legend .rss { color: #1f77b4; } .legend .heap { color: #ff7f0e; } .legend .gc { color: #2ca02c; }
`;

/** The memory section in HTML; `series` gives each agent's raw [t, bytes] samples for its timeline. */
export function renderMemoryHtml(
  m: MergedMemory,
  series: ReadonlyArray<{
    rss: ReadonlyArray<readonly [number, number]>;
    heap: ReadonlyArray<readonly [number, number]>;
    gaps?: ReadonlyArray<readonly [number, number]>;
  }>,
): string {
  const out: string[] = ["<h2>Server memory (sampling agent)</h2>"];
  for (const n of m.notes) out.push(`<blockquote>${escapeHtml(n)}</blockquote>`);
  out.push(htmlTable(FIGURES_HEADER, figuresRows(m)));
  m.agents.forEach((a, i) => {
    const toMib = (pts: ReadonlyArray<readonly [number, number]>) => pts.map(([t, v]) => [t, v / MIB] as const);
    out.push(`<h3>Timeline of ${escapeHtml(a.source)}</h3>`);
    out.push(
      `<p class="legend"><span class="rss">━ RSS</span><span class="heap">━ heap used (broken where the inspector did not answer)</span><span class="gc">● post-GC heap</span><span>╎ phase reached by the first session, ┊ by the last</span></p>`,
    );
    const gapEnds = new Set((series[i]?.gaps ?? []).map((g) => g[0]));
    out.push(timelineSvg(a, toMib(series[i]?.rss ?? []), toMib(series[i]?.heap ?? []), gapEnds));
    out.push(`<h3>Phase marks on ${escapeHtml(a.source)} (s since the agent started)</h3>`);
    out.push(a.phases.length ? htmlTable(PHASE_HEADER, phaseRows(a)) : "<p>No phase marks.</p>");
    out.push(`<h3>Peaks per phase window, ${escapeHtml(a.source)}</h3>`);
    out.push(htmlTable(WINDOW_HEADER, windowRows(a)));
  });
  return out.join("\n");
}
