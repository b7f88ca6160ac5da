// E-divisive means (pure): hierarchical change-point detection by energy statistics, written from
// Matteson, D. S. & James, N. A. (2014) "A Nonparametric Approach for Multiple Change Point Analysis
// of Multivariate Data", JASA 109(505), 334-345, with alpha = 1 (the energy distance of means):
//
//   Ê(X, Y) = 2/(mn) Σ|Xi - Yj| - C(m,2)^-1 Σ_{i<k}|Xi - Xk| - C(n,2)^-1 Σ_{j<k}|Yj - Yk|
//   Q̂(X, Y) = mn/(m+n) Ê(X, Y)
//
// For a segment Z1..ZT the split τ (X = Z1..Zτ) and the end κ (Y = Zτ+1..Zκ) maximise Q̂; the segment
// is split at τ. Each new change point is tested by permutation (section 3.2): the points of every
// current segment are shuffled within it, the largest Q̂ over all segments recomputed, and
// p = (1 + #{shuffled ≥ observed}) / (1 + R). Detection stops at the first point whose p exceeds the
// threshold. Segments shorter than minSize on either side of a split are not considered, so a single
// outlier cannot be a segment of its own (Apache Otava's users saw single spikes reported otherwise).
import type { Rng } from "../../common/prng.js";

export interface EdivisiveOptions {
  /** Points each side of a split at least (3: one spike alone is never a segment). */
  minSize: number;
  /** Shuffles per significance test. */
  permutations: number;
  /** Keep splitting while the newest change point's p-value is at most this. */
  pValue: number;
  rng: Rng;
}

export interface Split {
  /** Index of the first point after the split (the first point of the new level). */
  at: number;
  q: number;
}

/**
 * The best split of xs: argmax over τ and κ of Q̂, in O(n²) with column prefix sums of the distance
 * matrix (prefix[j][t] = Σ_{i<t} |xi - xj|). With `onlyAt`, the split is fixed there (κ still
 * maximised): the statistic of a given change point. Null when xs is too short to split.
 */
export function bestSplit(xs: ArrayLike<number>, minSize: number, onlyAt?: number): Split | null {
  const n = xs.length;
  if (n < 2 * minSize) return null;
  const prefix: Float64Array[] = [];
  for (let j = 0; j < n; j++) {
    const col = new Float64Array(n + 1);
    const xj = xs[j] as number;
    for (let i = 0; i < n; i++) col[i + 1] = (col[i] as number) + Math.abs((xs[i] as number) - xj);
    prefix.push(col);
  }
  let best: Split | null = null;
  // Within-X sum for X = x0..x(τ-1), grown one point at a time.
  let withinX = 0;
  for (let tau = 1; tau <= n - minSize; tau++) {
    withinX += (prefix[tau - 1] as Float64Array)[tau - 1] as number;
    if (tau < minSize || (onlyAt !== undefined && tau !== onlyAt)) continue;
    const m = tau;
    let cross = 0;
    let withinY = 0;
    for (let kappa = tau + 1; kappa <= n; kappa++) {
      const p = kappa - 1;
      const col = prefix[p] as Float64Array;
      cross += col[tau] as number;
      withinY += (col[p] as number) - (col[tau] as number);
      const k = kappa - tau;
      if (k < minSize) continue;
      const e = (2 * cross) / (m * k) - withinX / ((m * (m - 1)) / 2) - withinY / ((k * (k - 1)) / 2);
      const q = ((m * k) / (m + k)) * e;
      if (best === null || q > best.q) best = { at: tau, q };
    }
  }
  return best;
}

function shuffled(xs: readonly number[], rng: Rng): number[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j] as number, out[i] as number];
  }
  return out;
}

/** The largest best-split statistic over the segments, each shuffled within itself. */
function shuffledMax(segments: readonly number[][], minSize: number, rng: Rng): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const s of segments) {
    const b = bestSplit(shuffled(s, rng), minSize);
    if (b && b.q > max) max = b.q;
  }
  return max;
}

/** p of an observed statistic against `permutations` shuffles of the segments. */
export function permutationP(segments: readonly number[][], observed: number, o: EdivisiveOptions): number {
  let atLeast = 0;
  for (let r = 0; r < o.permutations; r++) if (shuffledMax(segments, o.minSize, o.rng) >= observed) atLeast++;
  return (1 + atLeast) / (1 + o.permutations);
}

export interface ChangeIndex {
  /** Index of the first point of the new level. */
  at: number;
  pValue: number;
}

/** Hierarchical E-divisive over xs: the change points found, in index order, each with its p-value. */
export function edivisive(xs: readonly number[], o: EdivisiveOptions): ChangeIndex[] {
  const found: ChangeIndex[] = [];
  for (;;) {
    const bounds = [0, ...found.map((c) => c.at).sort((a, b) => a - b), xs.length];
    const segments = bounds.slice(1).map((end, i) => xs.slice(bounds[i], end));
    let best: { at: number; q: number } | null = null;
    for (const [i, s] of segments.entries()) {
      const b = bestSplit(s, o.minSize);
      if (b && (best === null || b.q > best.q)) best = { at: (bounds[i] as number) + b.at, q: b.q };
    }
    if (!best) break;
    const p = permutationP(segments, best.q, o);
    if (p > o.pValue) break;
    found.push({ at: best.at, pValue: p });
  }
  return found.sort((a, b) => a.at - b.at);
}
