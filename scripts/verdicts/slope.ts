// The Theil–Sen slope and its distribution-free confidence interval: a robust trend of a figure
// (post-GC heap, RSS, open descriptors) over reconnect cycles, where one GC outlier must not make or
// hide a leak. Pure; no I/O.
//
// Sources:
// - H. Theil (1950), "A rank-invariant method of linear and polynomial regression analysis", and
//   P. K. Sen (1968), "Estimates of the regression coefficient based on Kendall's tau", JASA 63,
//   1379–1389: the slope is the median of all pairwise slopes (y_j - y_i) / (x_j - x_i).
// - Sen (1968) and M. Hollander, D. A. Wolfe, Nonparametric Statistical Methods (3rd ed., §9.4): the
//   interval takes order statistics of the sorted pairwise slopes at ranks (N -+ C) / 2, where N is the
//   number of pairs and C = z * sqrt(Var S), Var S = n(n-1)(2n+5)/18 being the variance of Kendall's S
//   under no trend (normal approximation, adequate from about n = 10). Ties in x are skipped.

export interface Slope {
  /** Median pairwise slope, in y units per x unit. */
  slope: number;
  /** 95% (or the asked level's) interval of the slope; equal to slope when too few points. */
  ciLow: number;
  ciHigh: number;
  /** Points used. */
  n: number;
}

/** Standard normal quantile for the two-sided levels used here (0.90, 0.95, 0.99). */
function zFor(level: number): number {
  if (level === 0.9) return 1.6448536269514722;
  if (level === 0.95) return 1.959963984540054;
  if (level === 0.99) return 2.5758293035489004;
  throw new RangeError(`confidence level must be 0.9, 0.95 or 0.99 (got ${level})`);
}

function median(sorted: readonly number[]): number {
  const m = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[m] as number) : ((sorted[m - 1] as number) + (sorted[m] as number)) / 2;
}

/** Theil–Sen slope of y over x with Sen's rank interval at `level` (default 0.95). Needs >= 2 points. */
export function theilSen(x: readonly number[], y: readonly number[], level = 0.95): Slope {
  if (x.length !== y.length) throw new RangeError(`x and y differ in length (${x.length} vs ${y.length})`);
  const n = x.length;
  const slopes: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = (x[j] as number) - (x[i] as number);
      if (dx !== 0) slopes.push(((y[j] as number) - (y[i] as number)) / dx);
    }
  }
  if (slopes.length === 0) throw new RangeError("a slope needs at least two points with different x");
  slopes.sort((a, b) => a - b);
  const slope = median(slopes);
  const N = slopes.length;
  const c = zFor(level) * Math.sqrt((n * (n - 1) * (2 * n + 5)) / 18);
  // Ranks are 1-based: the lower limit is the M1-th smallest slope, the upper the (M2 + 1)-th.
  const m1 = Math.floor((N - c) / 2);
  const m2 = Math.ceil((N + c) / 2);
  if (m1 < 1 || m2 + 1 > N) return { slope, ciLow: slopes[0] as number, ciHigh: slopes[N - 1] as number, n };
  return { slope, ciLow: slopes[m1 - 1] as number, ciHigh: slopes[m2] as number, n };
}
