// Pure statistics for comparisons: median, quantiles, IQR, paired ratios and a seeded
// percentile-bootstrap confidence interval of the median paired ratio. No I/O, no clocks, no Math.random:
// the same input always gives the same output, so a report renders byte for byte the same.
// The PRNG (mulberry32: Tommy Ettinger, public domain; 32 bits of state, passes gjrand's tests for the
// short streams used here) is the one the fixture generator uses.
import { randomFloats } from "../../common/prng.js";

/** Sorts a copy ascending; NaN is rejected by callers before this point. */
function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/**
 * Sample quantile, Hyndman & Fan (1996) definition 7: linear interpolation between order statistics,
 * h = (n - 1)p; the default of R's quantile(), numpy.quantile and Excel's PERCENTILE.INC.
 * Hyndman, R. J. & Fan, Y. (1996) "Sample quantiles in statistical packages", The American
 * Statistician 50(4), 361-365.
 */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("quantile of an empty sample");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile p must be in [0, 1] (got ${p})`);
  return quantileSorted(sorted(values), p);
}

/** quantile() on data already sorted ascending (skips the copy and sort in hot loops). */
export function quantileSorted(xs: readonly number[], p: number): number {
  const h = (xs.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  const a = xs[lo] as number;
  const b = xs[hi] as number;
  return a + (h - lo) * (b - a);
}

/** The median: the mean of the two middle values for an even count (quantile type 7 at p = 0.5). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Interquartile range, Q3 - Q1, with quantile type 7. */
export function iqr(values: readonly number[]): number {
  const xs = sorted(values);
  if (xs.length === 0) throw new RangeError("IQR of an empty sample");
  return quantileSorted(xs, 0.75) - quantileSorted(xs, 0.25);
}

/**
 * Paired ratios candidate[i] / baseline[i]. Pairs where either side is missing (null/undefined),
 * not finite, or not positive are skipped: a ratio of a zero or negative figure has no meaning here.
 */
export function pairedRatios(
  baseline: readonly (number | null | undefined)[],
  candidate: readonly (number | null | undefined)[],
): number[] {
  const n = Math.min(baseline.length, candidate.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const b = baseline[i];
    const c = candidate[i];
    if (typeof b !== "number" || typeof c !== "number") continue;
    if (!Number.isFinite(b) || !Number.isFinite(c) || b <= 0 || c <= 0) continue;
    out.push(c / b);
  }
  return out;
}

/** A seed derived from a string (FNV-1a 32-bit), so each metric gets its own reproducible stream. */
export function seedFromString(text: string, base = 0): number {
  let h = (0x811c9dc5 ^ base) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface BootstrapOptions {
  /** Number of bootstrap resamples (default 2,000). */
  resamples?: number;
  /** Confidence level (default 0.95). */
  confidence?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Smooth the resamples (see bootstrapMedianCI); default true. */
  smooth?: boolean;
}

export interface Interval {
  low: number;
  high: number;
}

/** A standard normal deviate from two uniforms (Box-Muller). */
function gaussian(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * Two-sided p of an exact sign test in which all n pairs fall on one side: 2 x 0.5^n. It needs no
 * assumption about the ratios' distribution, only that pairs are independent.
 */
export function unanimousSignP(n: number): number {
  return Math.min(1, 2 ** (1 - n));
}

/** A polynomial by Horner's rule, coefficients from the highest power down. */
function horner(coefficients: readonly number[], x: number): number {
  let y = 0;
  for (const k of coefficients) y = y * x + k;
  return y;
}

/**
 * The standard normal quantile z with P(Z <= z) = p, 0 < p < 1: Acklam's rational approximation
 * (relative error below 1.15e-9), for the z of an interval's level.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile p must be in (0, 1) (got ${p})`);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572, 1];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416, 1];
  const tail = (q: number) => horner(c, q) / horner(d, q);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  return (horner(a, q * q) * q) / horner(b, q * q);
}

/**
 * The standard normal distribution function P(Z <= x): Abramowitz & Stegun 7.1.26 (absolute error
 * below 1.5e-7), for the chance a projected interval clears a bound.
 */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const erfc =
    horner([1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592, 0], t) * Math.exp(-(x * x) / 2);
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** Sample standard deviation (n - 1 denominator); 0 for a single value. */
export function stdev(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
}

/**
 * Percentile bootstrap confidence interval of the median (Efron, B. & Tibshirani, R. (1993) An
 * Introduction to the Bootstrap, ch. 13): resample the values with replacement B times, take each
 * resample's median, report the (1-c)/2 and (1+c)/2 quantiles (type 7) of those medians. Seeded.
 *
 * Smoothed (the default): each resampled value gets Gaussian noise of sd h = s/sqrt(n), s the
 * sample sd. The plain bootstrap median takes only a few distinct values for small n, and its
 * percentile interval then covers only about 90-95% (measured by simulation, n = 5..50); smoothing
 * is the standard remedy for quantiles (Silverman, B. W. & Young, G. A. (1987) "The bootstrap: to
 * smooth or not to smooth?", Biometrika 74(3), 469-479; Hall, P., DiCiccio, T. J. & Romano, J. P.
 * (1989) "On smoothing and the bootstrap", Annals of Statistics 17(2), 692-704). The bandwidth
 * s/sqrt(n) is our choice, checked by simulation: 93.0-96.8% coverage for 8 <= n <= 50 under normal,
 * uniform and Laplace noise; below n = 8 it undercovers (n = 4: 88-91%; n = 3: 83-88%).
 * For a single value the interval is that value: there is no spread to resample.
 */
export function bootstrapMedianCI(values: readonly number[], options: BootstrapOptions = {}): Interval {
  const n = values.length;
  if (n === 0) throw new RangeError("bootstrap of an empty sample");
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const random = randomFloats(options.seed ?? 1);
  const h = options.smooth === false ? 0 : stdev(values) / Math.sqrt(n);
  const medians = new Float64Array(resamples);
  const sample = new Float64Array(n);
  const mid = n >> 1;
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) {
      const x = values[Math.floor(random() * n)] as number;
      sample[i] = h > 0 ? x + h * gaussian(random) : x;
    }
    sample.sort(); // typed arrays sort numerically
    medians[b] = n % 2 === 1 ? (sample[mid] as number) : ((sample[mid - 1] as number) + (sample[mid] as number)) / 2;
  }
  medians.sort();
  const alpha = (1 - confidence) / 2;
  const ms = Array.from(medians);
  return { low: quantileSorted(ms, alpha), high: quantileSorted(ms, 1 - alpha) };
}

/**
 * Bootstrap CI of the median of positive ratios, computed on their logarithms and mapped back:
 * ratios are multiplicative (1.25 and 0.8 are the same size of change), so the smoothing noise is
 * symmetric on the log scale. The median commutes with log for odd n.
 */
export function bootstrapRatioCI(ratios: readonly number[], options: BootstrapOptions = {}): Interval {
  const ci = bootstrapMedianCI(
    ratios.map((r) => Math.log(r)),
    options,
  );
  return { low: Math.exp(ci.low), high: Math.exp(ci.high) };
}

export interface RatioSummary {
  /** Number of usable pairs. */
  n: number;
  /** Median of the paired ratios candidate/baseline. */
  median: number;
  /** 95% (or options.confidence) bootstrap interval of that median (bootstrapRatioCI). */
  ci: Interval;
  /** Interquartile range of the paired ratios. */
  iqr: number;
}

/** Summarises paired ratios: their median, its bootstrap CI, and their IQR. Null when there are no pairs. */
export function summariseRatios(ratios: readonly number[], options: BootstrapOptions = {}): RatioSummary | null {
  if (ratios.length === 0) return null;
  return { n: ratios.length, median: median(ratios), ci: bootstrapRatioCI(ratios, options), iqr: iqr(ratios) };
}

/**
 * The largest value (-Infinity for none). A loop, not Math.max(...xs): spreading a large array
 * (a million latency rows) overflows the call stack.
 */
export function maxValue(values: readonly number[]): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max || Number.isNaN(v)) max = v;
  return max;
}

/** The smallest value (Infinity for none); a loop, as maxValue. */
export function minValue(values: readonly number[]): number {
  let min = Number.POSITIVE_INFINITY;
  for (const v of values) if (v < min || Number.isNaN(v)) min = v;
  return min;
}
