// Change points of a series (pure): the points of one cell × metric × testbed × branch, as log of
// their ratio to the anchor, in commit order. The Hunter/Otava way of running E-divisive means
// (Fleming et al. 2023, "Hunter: Using Change Point Detection to Hunt for Performance Regressions"):
// windows of `window` points overlapping by half, each searched by E-divisive (edivisive.ts, with
// its permutation test); then a merge pass over the whole series that re-tests each candidate
// between its neighbours and drops the weakest one failing the p-value or the minimum magnitude,
// until every one passes. A point whose ratio interval is more than WIDE times the series' median
// width is skipped (not weighted): it says little about its commit and would pull a level.
import { mix32, mulberry32 } from "../../common/prng.js";
import { median } from "../util/stats.js";
import { bestSplit, edivisive, permutationP } from "./edivisive.js";
import { type ChangeFloor, floorLog } from "./series-floor.js";

/** A point is skipped when its interval (on the log scale) is wider than this many median widths. */
export const WIDE = 4;
/** Points each side of a change point at least. */
export const MIN_SEGMENT = 3;

export interface SeriesPoint {
  commit: string;
  /** Median paired ratio to the anchor and its interval (null bounds: no interval). */
  ratio: number;
  low: number | null;
  high: number | null;
  /** The anchor's own median figure in this run (for the floor's absolute part). */
  anchorEstimate: number | null;
}

export interface DetectOptions {
  pValue: number;
  window: number;
  permutations: number;
  /** Seeds the permutations: the same series and seed give the same answer. */
  seed: number;
  floor: Omit<ChangeFloor, "unit">;
}

export interface SeriesChange {
  /** Index (into the points given) of the first point of the new level: the suspect commit. */
  index: number;
  commit: string;
  /** The last point of the old level. */
  stableCommit: string;
  pValue: number;
  /** log(after / before), the medians of the levels either side (positive: higher, a regression). */
  magnitude: number;
  /** The ratios to the anchor of the levels either side (medians). */
  before: number;
  after: number;
}

export interface SeriesDetection {
  changes: SeriesChange[];
  skipped: { index: number; commit: string; reason: string }[];
}

function width(p: SeriesPoint): number | null {
  return p.low !== null && p.high !== null && p.low > 0 && p.high > 0 ? Math.log(p.high) - Math.log(p.low) : null;
}

/** The indices detection uses, and the points skipped for their wide interval (saying how wide). */
function keptPoints(points: readonly SeriesPoint[]): { kept: number[]; skipped: SeriesDetection["skipped"] } {
  const widths = points.map(width);
  const known = widths.filter((w): w is number => w !== null);
  const typical = known.length > 0 ? median(known) : 0;
  const kept: number[] = [];
  const skipped: SeriesDetection["skipped"] = [];
  for (const [i, p] of points.entries()) {
    const w = widths[i];
    if (typical > 0 && w !== null && w !== undefined && w > WIDE * typical) {
      skipped.push({
        index: i,
        commit: p.commit,
        reason: `interval ${(w / typical).toFixed(1)}× the series' median width`,
      });
    } else kept.push(i);
  }
  return { kept, skipped };
}

/** Window starts: every half window, the last one ending at the series' end. */
export function windowStarts(n: number, window: number): number[] {
  if (n <= window) return [0];
  const step = Math.max(1, Math.floor(window / 2));
  const starts: number[] = [];
  for (let s = 0; s + window < n; s += step) starts.push(s);
  starts.push(n - window);
  return [...new Set(starts)];
}

interface Tested {
  at: number;
  pValue: number;
  magnitude: number;
}

/** A candidate re-tested between its neighbours (at most a window each side). */
function retest(ys: readonly number[], bounds: { prev: number; at: number; next: number }, o: DetectOptions): Tested {
  const left = Math.max(bounds.prev, bounds.at - o.window);
  const right = Math.min(bounds.next, bounds.at + o.window);
  const segment = ys.slice(left, right);
  const observed = bestSplit(segment, MIN_SEGMENT, bounds.at - left)?.q ?? Number.NEGATIVE_INFINITY;
  const rng = mulberry32(mix32(o.seed, bounds.at));
  const pValue = permutationP([segment], observed, {
    minSize: MIN_SEGMENT,
    permutations: o.permutations,
    pValue: o.pValue,
    rng,
  });
  const magnitude = median(ys.slice(bounds.at, right)) - median(ys.slice(left, bounds.at));
  return { at: bounds.at, pValue, magnitude };
}

/** The merge pass: drops the weakest failing candidate until every one passes. */
function merge(ys: readonly number[], candidates: number[], least: number, o: DetectOptions): Tested[] {
  let current = [...candidates].sort((a, b) => a - b);
  for (;;) {
    const tested = current.map((at, i) =>
      retest(ys, { prev: current[i - 1] ?? 0, at, next: current[i + 1] ?? ys.length }, o),
    );
    const failing = tested.filter((t) => t.pValue > o.pValue || Math.abs(t.magnitude) < least);
    if (failing.length === 0) return tested;
    const worst = failing.reduce((w, t) =>
      t.pValue > w.pValue || (t.pValue === w.pValue && Math.abs(t.magnitude) < Math.abs(w.magnitude)) ? t : w,
    );
    current = current.filter((at) => at !== worst.at);
  }
}

/** The change points of one series, oldest first. */
export function detectSeries(points: readonly SeriesPoint[], o: DetectOptions): SeriesDetection {
  const { kept, skipped } = keptPoints(points);
  const ys = kept.map((i) => Math.log((points[i] as SeriesPoint).ratio));
  const candidates = new Map<number, number>();
  for (const [w, start] of windowStarts(ys.length, o.window).entries()) {
    const rng = mulberry32(mix32(o.seed, w + 1));
    const found = edivisive(ys.slice(start, start + o.window), {
      minSize: MIN_SEGMENT,
      permutations: o.permutations,
      pValue: o.pValue,
      rng,
    });
    for (const c of found) {
      const at = start + c.at;
      // Overlapping windows find the same change at (nearly) the same place: keep one.
      const near = [...candidates.keys()].find((k) => Math.abs(k - at) < MIN_SEGMENT);
      if (near === undefined) candidates.set(at, c.pValue);
      else if (c.pValue < (candidates.get(near) as number)) {
        candidates.delete(near);
        candidates.set(at, c.pValue);
      }
    }
  }
  const anchors = kept.map((i) => points[i]?.anchorEstimate).filter((x): x is number => typeof x === "number");
  const least = floorLog(o.floor, anchors.length > 0 ? median(anchors) : null);
  const tested = merge(ys, [...candidates.keys()], least, o);
  const changes = tested.map((t, i): SeriesChange => {
    const prev = tested[i - 1]?.at ?? 0;
    const next = tested[i + 1]?.at ?? ys.length;
    const index = kept[t.at] as number;
    return {
      index,
      commit: (points[index] as SeriesPoint).commit,
      stableCommit: (points[kept[t.at - 1] as number] as SeriesPoint).commit,
      pValue: t.pValue,
      magnitude: t.magnitude,
      before: Math.exp(median(ys.slice(prev, t.at))),
      after: Math.exp(median(ys.slice(t.at, next))),
    };
  });
  return { changes, skipped };
}

/** Which series a change point is on. */
export interface SeriesKey {
  branch: string;
  testbedId: number;
  anchor: string;
  matrix: string;
  cell: string;
  metric: string;
}

/** One alert per suspect commit (on a branch and testbed), however many series changed there. */
export interface Alert {
  commit: string;
  stableCommit: string;
  branch: string;
  testbedId: number;
  /** "regression" when any series got higher (every figure here is better lower), else "improvement". */
  direction: "regression" | "improvement";
  changes: (SeriesKey & SeriesChange)[];
}

/** Groups change points by suspect commit: the series' changes at one commit are one alert. */
export function alertsOf(changes: readonly (SeriesKey & SeriesChange)[]): Alert[] {
  const groups = new Map<string, Alert>();
  for (const c of changes) {
    const key = JSON.stringify([c.branch, c.testbedId, c.commit]);
    const alert = groups.get(key) ?? {
      commit: c.commit,
      stableCommit: c.stableCommit,
      branch: c.branch,
      testbedId: c.testbedId,
      direction: "improvement",
      changes: [],
    };
    alert.changes.push(c);
    if (c.magnitude > 0) alert.direction = "regression";
    groups.set(key, alert);
  }
  return [...groups.values()];
}
