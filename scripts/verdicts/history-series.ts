// The store's record results as series (pure): one per cell × metric × testbed × branch, in
// first-parent order. Ratios are to the series' first anchor; a point measured against a later anchor
// is carried over through the anchor-to-anchor run that links them (the later anchor recorded against
// the earlier one), so a moved anchor does not break the series.
import type { SeriesRow, StoredTriage } from "../store/series-rows.js";
import { seedFromString } from "../util/stats.js";
import {
  type Alert,
  alertsOf,
  type DetectOptions,
  detectSeries,
  type SeriesChange,
  type SeriesDetection,
  type SeriesKey,
} from "./change-point-verdict.js";
import { changeFloor } from "./series-floor.js";

export interface HistoryPoint {
  commit: string;
  ord: number | null;
  subject: string | null;
  runId: number;
  /** Ratio to the series' anchor (through a link when measured against a later one) and its interval. */
  ratio: number;
  low: number | null;
  high: number | null;
  /** The commit's own median figure, and its anchor's, in the metric's unit. */
  estimate: number | null;
  anchorEstimate: number | null;
  /** The anchor this point was measured against. */
  measuredAgainst: string;
  pairs: number;
  verdict: string;
}

export interface Series {
  key: SeriesKey;
  unit: string;
  /** Every anchor whose points this series holds, the first one the ratios are to. */
  anchors: string[];
  points: HistoryPoint[];
}

const groupKey = (r: SeriesRow) => JSON.stringify([r.branch, r.testbedId, r.matrix, r.cell, r.metric]);

function byOrder(a: HistoryPoint & { time: number | null }, b: HistoryPoint & { time: number | null }): number {
  if (a.ord !== null && b.ord !== null && a.ord !== b.ord) return a.ord - b.ord;
  if (a.time !== null && b.time !== null && a.time !== b.time) return a.time - b.time;
  return a.runId - b.runId;
}

/** The factor from each anchor reachable from `base` to it (1 for base itself). */
function anchorLinks(rows: readonly SeriesRow[], base: string): Map<string, number> {
  const anchors = new Set(rows.map((r) => r.anchorSha));
  const links = new Map([[base, 1]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) {
      const from = links.get(r.anchorSha);
      if (from === undefined || !anchors.has(r.headSha) || links.has(r.headSha)) continue;
      links.set(r.headSha, from * r.ratio);
      grew = true;
    }
  }
  return links;
}

/** One group's rows (one cell × metric × testbed × branch) as series: one per unlinked anchor. */
function seriesOfGroup(rows: readonly SeriesRow[]): Series[] {
  const out: Series[] = [];
  let left = [...rows].sort((a, b) => a.runId - b.runId);
  while (left.length > 0) {
    const base = (left[0] as SeriesRow).anchorSha;
    const links = anchorLinks(left, base);
    const mine = left.filter((r) => links.has(r.anchorSha));
    left = left.filter((r) => !links.has(r.anchorSha));
    // A commit measured more than once: its latest run stands.
    const latest = new Map<string, SeriesRow>();
    for (const r of mine) latest.set(r.headSha, r);
    const points = [...latest.values()]
      .map((r) => {
        const f = links.get(r.anchorSha) as number;
        return {
          commit: r.headSha,
          ord: r.ord,
          time: r.time,
          subject: r.subject,
          runId: r.runId,
          ratio: r.ratio * f,
          low: r.ratioLow === null ? null : r.ratioLow * f,
          high: r.ratioHigh === null ? null : r.ratioHigh * f,
          estimate: r.estimate,
          anchorEstimate: r.baseEstimate,
          measuredAgainst: r.anchorSha,
          pairs: r.pairs,
          verdict: r.verdict,
        };
      })
      .sort(byOrder)
      .map(({ time: _, ...p }) => p);
    const first = mine[0] as SeriesRow;
    out.push({
      key: {
        branch: first.branch,
        testbedId: first.testbedId,
        anchor: base,
        matrix: first.matrix,
        cell: first.cell,
        metric: first.metric,
      },
      unit: first.unit,
      anchors: [...links.keys()].filter((a) => mine.some((r) => r.anchorSha === a)),
      points,
    });
  }
  return out;
}

/** Every series of the rows, in the order their first runs were added. */
export function seriesOf(rows: readonly SeriesRow[]): Series[] {
  const groups = new Map<string, SeriesRow[]>();
  for (const r of rows) groups.set(groupKey(r), [...(groups.get(groupKey(r)) ?? []), r]);
  return [...groups.values()].flatMap(seriesOfGroup);
}

export type DetectSettings = Omit<DetectOptions, "seed" | "floor">;

/** Detection over one series, seeded by its key; its floor is its metric's. */
export function detectIn(series: Series, settings: DetectSettings): SeriesDetection {
  return detectSeries(series.points, {
    ...settings,
    seed: seedFromString(JSON.stringify(series.key)),
    floor: changeFloor(series.key.metric),
  });
}

export interface DetectedSeries {
  series: Series;
  changes: SeriesChange[];
  skipped: { index: number; commit: string; reason: string }[];
}

export interface Detection {
  series: DetectedSeries[];
  /** One per suspect commit, newest first, with what a person decided about it (null: open). */
  alerts: (Alert & { triage: StoredTriage | null })[];
}

/** Runs detection over every series (pure apart from nothing: the rows are read by the caller). */
export function detectAll(
  series: readonly Series[],
  settings: DetectSettings,
  triage: readonly StoredTriage[],
): Detection {
  const detected = series.map((s) => ({ series: s, ...detectIn(s, settings) }));
  const changes = detected.flatMap((d) => d.changes.map((c) => ({ ...d.series.key, ...c })));
  const order = new Map(detected.flatMap((d) => d.series.points.map((p) => [p.commit, p.ord ?? p.runId] as const)));
  const alerts = alertsOf(changes)
    .map((a) => ({
      ...a,
      triage:
        triage.find((t) => t.commitSha === a.commit && t.branch === a.branch && t.testbedId === a.testbedId) ?? null,
    }))
    .sort((a, b) => (order.get(b.commit) ?? 0) - (order.get(a.commit) ?? 0));
  return { series: detected, alerts };
}
