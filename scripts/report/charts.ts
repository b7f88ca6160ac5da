// Chart data for report.html (pure): per latency case the trial points and medians; per memory cell
// the heap and RSS timelines of both variants on one time axis (0 = clients connect), phase marks and
// the post-GC point. Values leave here in MiB and ms, ready for uPlot's aligned-columns format.
import type { SampleLine } from "../results/schema.js";
import type { Roles } from "../verdicts/metrics.js";
import { size } from "./format.js";
import type { LatencyCaseModel, MemoryCellModel, ReportModel } from "./model.js";

const MIB = 1024 * 1024;

export interface LatencyChart {
  kind: "latency";
  id: string;
  title: string;
  names: [string, string];
  /** x: trial numbers; then baseline ms, candidate ms, baseline median, candidate median. */
  data: (number | null)[][];
}

export interface PhaseMark {
  t: number;
  phase: string;
  variant: 0 | 1;
}

export interface MemoryChart {
  kind: "memory";
  id: string;
  title: string;
  names: [string, string];
  /** x: ms since clients connect; then heap B, RSS B, post-GC B, heap C, RSS C, post-GC C (MiB). */
  data: (number | null)[][];
  /**
   * Heap gaps: [series index in data, x] where the heap lane had no answer. In data a null means "no
   * value at this x" (joined across); at a break the line must stop (drawn as a gap, not interpolated).
   */
  breaks: [number, number][];
  phases: PhaseMark[];
  /** Why a variant has no timeline (no samples file, or it could not be read). */
  missing: string[];
  /** The memory cell (its index in the report) and trial (round) this timeline shows: one figure per cell. */
  cell?: number;
  trial?: number;
}

export type Chart = LatencyChart | MemoryChart;

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

export function latencyChart(c: LatencyCaseModel, roles: Roles, index: number): LatencyChart {
  const cols = new Map<number, (number | null)[]>();
  const put = (trial: number, slot: number, v: number | null) => {
    const row = cols.get(trial) ?? [null, null, null, null];
    row[slot] = v === null ? null : round(v, 3);
    cols.set(trial, row);
  };
  for (const p of c.points.baseline) put(p.trial, 0, p.ms);
  if (roles.candidate !== roles.baseline) for (const p of c.points.candidate) put(p.trial, 1, p.ms);
  for (const row of cols.values()) {
    row[2] = c.completionMedianMs.baseline === null ? null : round(c.completionMedianMs.baseline, 3);
    row[3] =
      c.completionMedianMs.candidate === null || roles.candidate === roles.baseline
        ? null
        : round(c.completionMedianMs.candidate, 3);
  }
  return {
    kind: "latency",
    id: `latency-${index}`,
    title: `${c.label}: completion time per trial (ms)`,
    names: [roles.baseline, roles.candidate],
    data: align(cols, 4),
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

export function memoryChart(
  m: MemoryCellModel,
  roles: Roles,
  samples: [SampleSeries, SampleSeries],
  index: number | string,
): MemoryChart {
  const cols = new Map<number, (number | null)[]>();
  const phases: PhaseMark[] = [];
  const missing: string[] = [];
  const breaks: [number, number][] = [];
  const put = (x: number, slot: number, value: number | null) => {
    const row = cols.get(x) ?? [null, null, null, null, null, null];
    row[slot] = value;
    cols.set(x, row);
  };
  // A single-target run passes its one variant in both roles: chart it once.
  const shown = roles.baseline === roles.candidate ? samples.slice(0, 1) : samples;
  shown.forEach((lines, v) => {
    const name = v === 0 ? roles.baseline : roles.candidate;
    if (!lines || lines.length === 0) {
      missing.push(`${name}: no samples`);
      return;
    }
    const connect = lines.find((l) => "phase" in l && l.phase === "connect");
    const t0 = connect ? connect.t : 0;
    // RSS and heap are separate lanes with their own times (older files hold both in one line).
    for (const s of thin(lines.filter(isRss), 4000, (l) => l.rss))
      put(round(s.t - t0, 2), v * 3 + 1, round(s.rss / MIB, 3));
    for (const s of thin(lines.filter(isHeap), 4000, (l) => l.heapUsed))
      put(round(s.t - t0, 2), v * 3, round(s.heapUsed / MIB, 3));
    // A stretch with no heap answer ends at the gap line's t: break the heap line inside it.
    for (const g of lines.filter(isGap)) {
      const x = round(g.t - g.heapGapMs / 2 - t0, 2);
      if (!cols.get(x)) put(x, v * 3, null);
      breaks.push([v * 3 + 1, x]);
    }
    for (const l of lines) {
      if (!("phase" in l)) continue;
      const x = round(l.t - t0, 2);
      phases.push({ t: x, phase: l.phase, variant: v as 0 | 1 });
      // Heap after a forced GC: before clients connect ("baseline") and after they closed ("gc").
      if ((l.phase === "gc" || l.phase === "baseline") && typeof l.heapUsed === "number") {
        const row = cols.get(x) ?? [null, null, null, null, null, null];
        row[v * 3 + 2] = round(l.heapUsed / MIB, 3);
        cols.set(x, row);
      }
    }
  });
  return {
    kind: "memory",
    id: `memory-${index}`,
    title: `${size(m.scriptBytes)} scripts, ${m.clients} subscription${m.clients === 1 ? "" : "s"}, ${m.mode}: heap and RSS (MiB) over time (ms from clients connecting)`,
    names: [roles.baseline, roles.candidate],
    data: align(cols, 6),
    breaks,
    phases,
    missing,
  };
}

/**
 * Every chart of a report: one per latency case, and per memory cell one timeline per trial (round),
 * pairing trial k of the baseline with trial k of the candidate (the report shows one at a time).
 */
export function reportCharts(model: ReportModel, samplesOf: (file: string | null) => SampleSeries): Chart[] {
  const roles = model.roles ?? (model.single ? { baseline: model.single, candidate: model.single } : null);
  if (!roles) return [];
  const charts: Chart[] = model.latency.map((c, i) => latencyChart(c, roles, i));
  model.memory.forEach((m, i) => {
    const fileOf = (list: { trial: number; file: string | null }[], trial: number) =>
      list.find((t) => t.trial === trial)?.file ?? null;
    const trials = [...new Set([...m.trialFiles.baseline, ...m.trialFiles.candidate].map((t) => t.trial))].sort(
      (a, b) => a - b,
    );
    for (const trial of trials.length > 0 ? trials : [1]) {
      const pair: [SampleSeries, SampleSeries] = [
        samplesOf(fileOf(m.trialFiles.baseline, trial)),
        samplesOf(fileOf(m.trialFiles.candidate, trial)),
      ];
      const id = trial === trials[0] ? i : `${i}-t${trial}`;
      charts.push({ ...memoryChart(m, roles, pair, id), cell: i, trial });
    }
  });
  return charts;
}
