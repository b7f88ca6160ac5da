// Chart data for report.html (pure): per latency case the trial points and medians; per memory cell
// the heap and RSS timelines of both variants on one time axis (0 = clients connect), phase marks and
// the post-GC point. Values leave here in MiB and ms, ready for uPlot's aligned-columns format.
import type { SampleLine } from "../results.js";
import { size } from "./format.js";
import type { Roles } from "./metrics.js";
import type { LatencyCaseModel, MemoryCellModel } from "./model.js";

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
  phases: PhaseMark[];
  /** Why a variant has no timeline (no samples file, or it could not be read). */
  missing: string[];
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
  for (const p of c.points.candidate) put(p.trial, 1, p.ms);
  for (const row of cols.values()) {
    row[2] = c.completionMedianMs.baseline === null ? null : round(c.completionMedianMs.baseline, 3);
    row[3] = c.completionMedianMs.candidate === null ? null : round(c.completionMedianMs.candidate, 3);
  }
  return {
    kind: "latency",
    id: `latency-${index}`,
    title: `${c.label}: completion time per trial (ms)`,
    names: [roles.baseline, roles.candidate],
    data: align(cols, 4),
  };
}

/** Every n-th sample when a timeline is long, always keeping the heap and RSS peaks. */
function thin<T extends { t: number; rss: number; heapUsed: number }>(xs: T[], max: number): T[] {
  if (xs.length <= max) return xs;
  const step = Math.ceil(xs.length / max);
  let heapPeak = 0;
  let rssPeak = 0;
  xs.forEach((s, i) => {
    if (s.heapUsed > (xs[heapPeak]?.heapUsed ?? 0)) heapPeak = i;
    if (s.rss > (xs[rssPeak]?.rss ?? 0)) rssPeak = i;
  });
  return xs.filter((_, i) => i % step === 0 || i === heapPeak || i === rssPeak || i === xs.length - 1);
}

export function memoryChart(
  m: MemoryCellModel,
  roles: Roles,
  samples: [SampleSeries, SampleSeries],
  index: number,
): MemoryChart {
  const cols = new Map<number, (number | null)[]>();
  const phases: PhaseMark[] = [];
  const missing: string[] = [];
  samples.forEach((lines, v) => {
    const name = v === 0 ? roles.baseline : roles.candidate;
    if (!lines || lines.length === 0) {
      missing.push(`${name}: no samples`);
      return;
    }
    const connect = lines.find((l) => "phase" in l && l.phase === "connect");
    const t0 = connect ? connect.t : 0;
    const points = lines.filter((l): l is Extract<SampleLine, { rss: number }> => "rss" in l);
    for (const s of thin(points, 4000)) {
      const x = round(s.t - t0, 2);
      const row = cols.get(x) ?? [null, null, null, null, null, null];
      row[v * 3] = round(s.heapUsed / MIB, 3);
      row[v * 3 + 1] = round(s.rss / MIB, 3);
      cols.set(x, row);
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
    phases,
    missing,
  };
}
