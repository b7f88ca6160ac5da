// Chart data for report.html (pure): per latency case the trial points and medians; per memory cell
// the heap and RSS timelines of both variants on one time axis (0 = clients connect), phase marks and
// the post-GC point. Values leave here in MiB and ms, ready for uPlot's aligned-columns format.
import { LATENCY_METRICS, type LatencyMetric, metricOf } from "../results/metric-names.js";
import type { SampleLine } from "../results/schema.js";
import { size } from "../util/format.js";
import type { Roles } from "../verdicts/metrics.js";
import type { LatencyCaseModel, MemoryCellModel, ReportModel } from "./model.js";
import { type RssSplitChart, rssSplitChart } from "./rss-split-chart.js";

const MIB = 1024 * 1024;

/** A timer a latency chart draws: its header, and its points' and median line's style (the metric table's). */
export interface ChartedTimer {
  name: string;
  point: "dot" | "ring";
  median: "dash" | "dotted";
}

export interface LatencyChart {
  kind: "latency";
  id: string;
  title: string;
  names: [string, string];
  /** The timers drawn, in the data's order. */
  timers: ChartedTimer[];
  /**
   * x: trial numbers; then per timer baseline ms, candidate ms; then per timer the baseline's and
   * the candidate's median (a constant column each).
   */
  data: (number | null)[][];
}

export interface PhaseMark {
  t: number;
  phase: string;
}

/** One variant's timeline in one trial (round) of a memory cell, x in ms since its clients connect. */
export interface MemoryTimeline {
  /** 0 baseline, 1 candidate. */
  variant: 0 | 1;
  trial: number;
  /** Heap used (MiB) at xs; a null is a break: a stretch with no heap answer, drawn as a gap. */
  heap: [number[], (number | null)[]];
  /** RSS (MiB) at xs. */
  rss: [number[], number[]];
  /** Heap after a forced GC (MiB): before the clients connect ("baseline") and after they closed ("gc"). */
  gc: [number, number][];
  phases: PhaseMark[];
  /** The highest heap and RSS sample, [x, MiB]; null when the lane has none. */
  peakHeap: [number, number] | null;
  peakRss: [number, number] | null;
}

export interface MemoryChart {
  kind: "memory";
  id: string;
  title: string;
  names: [string, string];
  /** Every trial of both variants (a single target: only the first slot). */
  timelines: MemoryTimeline[];
  /** The trial numbers offered, ascending. */
  trials: number[];
  /** Per variant, the trial drawn bold by default: the one whose peak heap is the median (lower middle). */
  medianTrial: [number | null, number | null];
  /** Why a variant's trial has no timeline (no samples file, or it could not be read). */
  missing: string[];
}

export type Chart = LatencyChart | MemoryChart | RssSplitChart;

/** Samples of one trial, parsed (a truncated last line is dropped by the reader). */
export type SampleSeries = SampleLine[] | null;

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Merges columns keyed by x into uPlot's aligned format (sorted x; null where a series has no value). */
export function align(columns: Map<number, (number | null)[]>, width: number): (number | null)[][] {
  const xs = [...columns.keys()].sort((a, b) => a - b);
  const out: (number | null)[][] = [xs];
  for (let s = 0; s < width; s++) out.push(xs.map((x) => columns.get(x)?.[s] ?? null));
  return out;
}

/** The latency metrics each latency case's chart draws (the metric table's chart style), in table order. */
const CHARTED_TIMERS: readonly LatencyMetric[] = LATENCY_METRICS.filter((m) => metricOf(m).chart);

/** The timers a latency chart draws, named and styled as the metric table says. */
export function chartedTimers(): ChartedTimer[] {
  return CHARTED_TIMERS.flatMap((m) => {
    const { header, chart } = metricOf(m);
    return chart ? [{ name: header, ...chart }] : [];
  });
}

export function latencyChart(c: LatencyCaseModel, roles: Roles, index: number): LatencyChart {
  const single = roles.candidate === roles.baseline;
  const timers = CHARTED_TIMERS;
  const width = 4 * timers.length;
  const cols = new Map<number, (number | null)[]>();
  const put = (trial: number, slot: number, v: number | null) => {
    const row = cols.get(trial) ?? Array<number | null>(width).fill(null);
    row[slot] = v === null ? null : round(v, 3);
    cols.set(trial, row);
  };
  const points: [typeof c.points.baseline, 0 | 1][] = [[c.points.baseline, 0]];
  if (!single) points.push([c.points.candidate, 1]);
  for (const [list, v] of points) {
    for (const p of list) {
      timers.forEach((m, i) => {
        put(p.trial, 2 * i + v, p.values[m]);
      });
    }
  }
  const medians = timers.flatMap((m) => [c.medians[m].baseline, single ? null : c.medians[m].candidate]);
  for (const row of cols.values()) {
    medians.forEach((m, i) => {
      row[2 * timers.length + i] = m === null ? null : round(m, 3);
    });
  }
  return {
    kind: "latency",
    id: `latency-${index}`,
    title: `${c.label}: ${chartedTimers()
      .map((t) => t.name)
      .join(" and ")}, per trial (ms)`,
    names: [roles.baseline, roles.candidate],
    timers: chartedTimers(),
    data: align(cols, width),
  };
}

/** Every n-th point when a timeline is long, always keeping its peak and its last point. */
function thin<T>(xs: T[], max: number, value: (x: T) => number): T[] {
  if (xs.length <= max) return xs;
  const step = Math.ceil(xs.length / max);
  let peak = 0;
  xs.forEach((s, i) => {
    if (value(s) > value(xs[peak] as T)) peak = i;
  });
  return xs.filter((_, i) => i % step === 0 || i === peak || i === xs.length - 1);
}

type RssLine = { t: number; rss: number };
type HeapLine = { t: number; heapUsed: number };
type GapLine = { t: number; heapGapMs: number };
const isRss = (l: SampleLine): l is SampleLine & RssLine => "rss" in l && typeof l.rss === "number";
const isHeap = (l: SampleLine): l is SampleLine & HeapLine =>
  "heapUsed" in l && typeof l.heapUsed === "number" && !("phase" in l);
const isGap = (l: SampleLine): l is SampleLine & GapLine => "heapGapMs" in l && typeof l.heapGapMs === "number";

/** The highest point of a lane, [x, y] (the first of equal maxima); null for an empty lane. */
function peakOf(xs: number[], ys: (number | null)[]): [number, number] | null {
  let at = -1;
  ys.forEach((y, i) => {
    if (y !== null && (at < 0 || y > (ys[at] as number))) at = i;
  });
  return at < 0 ? null : [xs[at] as number, ys[at] as number];
}

/** One variant's samples of one trial as a timeline, aligned on its own "connect" phase. */
export function memoryTimeline(lines: SampleLine[], variant: 0 | 1, trial: number): MemoryTimeline {
  const connect = lines.find((l) => "phase" in l && l.phase === "connect");
  const t0 = connect ? connect.t : 0;
  const x = (t: number) => round(t - t0, 2);
  // RSS and heap are separate lanes with their own times (older files hold both in one line).
  const rssLines = thin(lines.filter(isRss), 4000, (l) => l.rss);
  const rss: [number[], number[]] = [rssLines.map((s) => x(s.t)), rssLines.map((s) => round(s.rss / MIB, 3))];
  const heapPoints: [number, number | null][] = thin(lines.filter(isHeap), 4000, (l) => l.heapUsed).map((s) => [
    x(s.t),
    round(s.heapUsed / MIB, 3),
  ]);
  // A stretch with no heap answer ends at the gap line's t: a null inside it stops the line there.
  for (const g of lines.filter(isGap)) heapPoints.push([x(g.t - g.heapGapMs / 2), null]);
  heapPoints.sort((a, b) => a[0] - b[0]);
  const heap: [number[], (number | null)[]] = [heapPoints.map((p) => p[0]), heapPoints.map((p) => p[1])];
  const phases: PhaseMark[] = [];
  const gc: [number, number][] = [];
  for (const l of lines) {
    if (!("phase" in l)) continue;
    phases.push({ t: x(l.t), phase: l.phase });
    if ((l.phase === "gc" || l.phase === "baseline") && typeof l.heapUsed === "number") {
      gc.push([x(l.t), round(l.heapUsed / MIB, 3)]);
    }
  }
  return {
    variant,
    trial,
    heap,
    rss,
    gc,
    phases,
    peakHeap: peakOf(heap[0], heap[1]),
    peakRss: peakOf(rss[0], rss[1]),
  };
}

/** The trial whose peak heap is the median of the variant's trials (the lower middle for an even count). */
export function medianTrial(timelines: MemoryTimeline[]): number | null {
  const ranked = timelines
    .filter((t) => t.peakHeap !== null)
    .sort((a, b) => (a.peakHeap?.[1] as number) - (b.peakHeap?.[1] as number) || a.trial - b.trial);
  if (ranked.length === 0) return timelines[0]?.trial ?? null;
  return (ranked[Math.floor((ranked.length - 1) / 2)] as MemoryTimeline).trial;
}

/**
 * A memory cell's chart: every trial of both variants, trial k of the baseline beside trial k of the
 * candidate. samples[v] lists the variant's trials with their parsed samples (null: none readable).
 */
export function memoryChart(
  m: MemoryCellModel,
  roles: Roles,
  samples: [{ trial: number; lines: SampleSeries }[], { trial: number; lines: SampleSeries }[]],
  index: number | string,
): MemoryChart {
  const timelines: MemoryTimeline[] = [];
  const missing: string[] = [];
  // A single-target run passes its one variant in both roles: chart it once.
  const shown = roles.baseline === roles.candidate ? samples.slice(0, 1) : samples;
  const several = new Set(shown.flatMap((s) => s.map((t) => t.trial))).size > 1;
  shown.forEach((trials, v) => {
    const name = v === 0 ? roles.baseline : roles.candidate;
    if (trials.length === 0) missing.push(`${name}: no samples`);
    for (const { trial, lines } of trials) {
      if (!lines || lines.length === 0) missing.push(`${name}${several ? ` trial ${trial}` : ""}: no samples`);
      else timelines.push(memoryTimeline(lines, v as 0 | 1, trial));
    }
  });
  const of = (v: 0 | 1) => timelines.filter((t) => t.variant === v);
  return {
    kind: "memory",
    id: `memory-${index}`,
    title: `${size(m.scriptBytes)} scripts, ${m.clients} subscription${m.clients === 1 ? "" : "s"}, ${m.mode}: heap and RSS (MiB) over time (ms from clients connecting)`,
    names: [roles.baseline, roles.candidate],
    timelines,
    trials: [...new Set(samples.flatMap((s) => s.map((t) => t.trial)))].sort((a, b) => a - b),
    medianTrial: [medianTrial(of(0)), shown.length > 1 ? medianTrial(of(1)) : null],
    missing,
  };
}

/**
 * Every chart of a report: one per latency case, and one per memory cell holding all its trials
 * (one per round), trial k of the baseline paired with trial k of the candidate.
 */
export function reportCharts(model: ReportModel, samplesOf: (file: string | null) => SampleSeries): Chart[] {
  const roles = model.roles ?? (model.single ? { baseline: model.single, candidate: model.single } : null);
  if (!roles) return [];
  const charts: Chart[] = model.latency.map((c, i) => latencyChart(c, roles, i));
  model.memory.forEach((m, i) => {
    const read = (list: { trial: number; file: string | null }[]) =>
      list.map((t) => ({ trial: t.trial, lines: samplesOf(t.file) }));
    const samples: [ReturnType<typeof read>, ReturnType<typeof read>] = [
      read(m.trialFiles.baseline),
      read(m.trialFiles.candidate),
    ];
    const chart = memoryChart(m, roles, samples, i);
    charts.push(chart);
    // The RSS split of each variant's bold (median) trial, beside the memory chart.
    ([0, 1] as const).forEach((v) => {
      const trial = chart.medianTrial[v];
      const lines = samples[v].find((s) => s.trial === trial)?.lines;
      const name = v === 0 ? roles.baseline : roles.candidate;
      const split = trial !== null && lines ? rssSplitChart(m, name, v, trial, lines, `rss-split-${i}-${v}`) : null;
      if (split) charts.push(split);
    });
  });
  return charts;
}
