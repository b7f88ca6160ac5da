// The regression guard (pure): FAIL when the median of the paired ratios candidate/baseline of any
// guarded metric exceeds a fixed ceiling; one line per metric stating the rule and the decision.
import type { Results } from "../results.js";
import { median } from "../stats.js";
import { isMetric, METRICS, metricRatios, rolesOf } from "./metrics.js";

export interface GuardOptions {
  ceiling: number;
  metrics: string[];
}

export interface GuardDecision {
  pass: boolean;
  lines: string[];
}

/** The metric names --guard accepts (the report's metric list; bench and report both use this one). */
export const GUARD_METRICS: readonly string[] = METRICS;

/** The headline figure of each matrix: what the guard judges when --guard is not given. */
export function defaultGuard(
  matrices: { latency: boolean; memory: boolean } = { latency: true, memory: true },
): string[] {
  return [...(matrices.latency ? ["completionMs"] : []), ...(matrices.memory ? ["peakHeapBytes"] : [])];
}

/** Throws a RangeError naming the unknown metric and the allowed ones. */
export function checkGuardMetrics(metrics: readonly string[]): void {
  for (const m of metrics) {
    if (!isMetric(m)) throw new RangeError(`unknown guard metric ${JSON.stringify(m)}; allowed: ${METRICS.join(", ")}`);
  }
}

/**
 * Judges a run. A metric with no usable pairs FAILS: a guard that cannot see the figure must not
 * let it through.
 */
export function judge(results: Results, options: GuardOptions): GuardDecision {
  checkGuardMetrics(options.metrics);
  const roles = rolesOf(results);
  const c = options.ceiling;
  if (!roles) return { pass: false, lines: ["guard: the run has no baseline and candidate to compare: FAIL"] };
  const lines = options.metrics.map((metric) => {
    if (!isMetric(metric)) throw new RangeError(metric); // unreachable: checked above
    const ratios = metricRatios(metric, results, roles);
    if (ratios.length === 0)
      return { ok: false, line: `${metric}: no paired ratios (no trial ok in both variants): FAIL` };
    const m = median(ratios);
    const ok = m <= c;
    // Enough digits that the figure never prints equal to the ceiling it was compared with.
    let digits = 3;
    while (digits < 8 && m !== c && Number(m.toFixed(digits)) === c) digits++;
    return {
      ok,
      line: `${metric}: median of ${ratios.length} paired ratios ${m.toFixed(digits)} ${ok ? "<=" : ">"} ceiling ${c}: ${ok ? "PASS" : "FAIL"}`,
    };
  });
  return { pass: lines.every((l) => l.ok), lines: lines.map((l) => l.line) };
}
