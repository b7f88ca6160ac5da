// The regression guard (pure), judged per cell: a guarded metric FAILs in a cell when that cell's
// median paired ratio candidate/baseline exceeds the ceiling (with `confidence`, when its interval's
// lower bound does). The run fails when any guarded cell fails; a guarded cell with missing pairs, or
// above the ceiling but inside its A/A band, leaves the run without a verdict.

import { cellName } from "../results/cell-names.js";
import { JUDGED_METRICS, LEAK_METRIC, metricOf } from "../results/metric-names.js";
import type { Results } from "../results/schema.js";
import type { CellVerdict } from "../results/verdict-record.js";
import { EXIT, type ExitCode } from "../util/exit-codes.js";
import { GUARD_MIN_PAIRS, type GuardConfig, verdictsOf } from "./cells.js";
import { judgeLeak } from "./leak-guard.js";
import { isLatencyMetric, isMetric, rolesOf } from "./metrics.js";
import { isStormMetric, runStormVerdicts } from "./storm-verdict.js";

export interface GuardDecision {
  /** True when the run passes: no guarded cell failed, none is missing or undecided. */
  pass: boolean;
  /** EXIT.ok, EXIT.regression (a guarded cell failed) or EXIT.noResult (missing pairs or undecided). */
  exitCode: ExitCode;
  lines: string[];
  /** "completionMs resume-many" for each failed cell. */
  failed: string[];
  /** Cells without a verdict: missing pairs, or above the ceiling inside the A/A band. */
  undecided: string[];
}

/** The metric names --guard accepts (the metric table's judged figures; bench and report both use this one). */
export const GUARD_METRICS: readonly string[] = JUDGED_METRICS;

/** What the guard judges when --guard is not given: the figures the metric table guards by default, in each matrix that runs. */
export function defaultGuard(
  matrices: { latency: boolean; memory: boolean; leak?: boolean; storm?: boolean } = { latency: true, memory: true },
): string[] {
  return JUDGED_METRICS.filter((m) => metricOf(m).guardedByDefault && matrices[metricOf(m).matrix] === true);
}

/**
 * The parts a run measured, as bench chose its default guard from them: the recorded configuration's
 * switches, else (a run without them) latency and memory, and leak and storm when the run has their rows.
 * `report --ceiling` without --guard judges what bench judged.
 */
export function runMatrices(results: Results): { latency: boolean; memory: boolean; leak: boolean; storm: boolean } {
  const config = results.run.config ?? {};
  return {
    latency: typeof config.latency === "boolean" ? config.latency : true,
    memory: typeof config.memory === "boolean" ? config.memory : true,
    leak: typeof config.leakCycles === "number" ? config.leakCycles > 0 : (results.leak?.length ?? 0) > 0,
    storm: Array.isArray(config.stormClients) ? config.stormClients.length > 0 : (results.storm?.length ?? 0) > 0,
  };
}

/** Throws a RangeError naming the unknown metric and the allowed ones. */
export function checkGuardMetrics(metrics: readonly string[]): void {
  for (const m of metrics) {
    if (!isMetric(m) && m !== LEAK_METRIC && !isStormMetric(m))
      throw new RangeError(`unknown guard metric ${JSON.stringify(m)}; allowed: ${GUARD_METRICS.join(", ")}`);
  }
}

/** Enough digits that a figure never prints equal to the ceiling it was compared with. */
function digitsFor(x: number, ceiling: number): string {
  let digits = 3;
  while (digits < 8 && x !== ceiling && Number(x.toFixed(digits)) === ceiling) digits++;
  return x.toFixed(digits);
}

/** A cell's verdict as a guard line reads it: a latency/memory cell, or a storm cell with its missing pairs. */
type JudgedCell = Omit<CellVerdict, "metric"> & { metric: string; missing?: readonly { reason: string }[] };

function cellLine(v: JudgedCell, options: GuardConfig): string {
  const name = `${v.metric} ${cellName(v.cell)}`;
  if (v.verdict === "missing") {
    return `${name}: ${v.pairs} of ${v.plannedPairs} planned pairs ok: MISSING (no verdict; --allow-missing judges the pairs there are)`;
  }
  if (v.verdict === "too-few-pairs") {
    const ratio = v.median === null ? "" : `median paired ratio ${v.median.toFixed(3)} `;
    return `${name}: ${ratio}(${v.pairs} pair${v.pairs === 1 ? "" : "s"}); TOO FEW PAIRS (no verdict: ${v.reason})`;
  }
  const c = options.ceiling;
  const median = v.median as number;
  const ci = v.ciLow !== null && v.ciHigh !== null ? `, 95% CI ${v.ciLow.toFixed(3)}–${v.ciHigh.toFixed(3)}` : "";
  const aa = v.aaLow !== null && v.aaHigh !== null ? `, A/A band ${v.aaLow.toFixed(3)}–${v.aaHigh.toFixed(3)}` : "";
  const figure = `median paired ratio ${digitsFor(median, c)} (${v.pairs} pair${v.pairs === 1 ? "" : "s"}${ci}${aa})`;
  const judged = options.confidence ? `interval low ${digitsFor(v.ciLow ?? median, c)}` : "median";
  const over = v.verdict === "fail" || v.undecided;
  const rule = `${judged} ${over ? ">" : "<="} ceiling ${c}`;
  const decision =
    v.verdict === "fail"
      ? "FAIL"
      : v.undecided
        ? "NO VERDICT (inside the A/A band)"
        : v.verdict === "noise"
          ? "PASS (within noise)"
          : "PASS";
  return `${name}: ${figure}; ${rule}: ${decision}`;
}

/** A storm verdict's pairs that did not count, named after its line (storm cells only carry them). */
function missingPairs(v: JudgedCell): string {
  return v.missing?.length ? ` [${v.missing.map((m) => m.reason).join("; ")}]` : "";
}

/** "; too few pairs: run 5 more rounds (--trials 8 --memory-trials 8)": what would let the guard decide. */
function tooFewAdvice(cells: readonly JudgedCell[], options: GuardConfig): string {
  if (cells.length === 0) return "";
  const more = Math.max(...cells.map((v) => (options.minPairs ?? GUARD_MIN_PAIRS) - v.pairs));
  const latency = cells.some((v) => isLatencyMetric(v.metric));
  const memory = cells.some((v) => isMetric(v.metric) && !isLatencyMetric(v.metric));
  const needed = options.minPairs ?? GUARD_MIN_PAIRS;
  const flags = [latency ? `--trials ${needed}` : null, memory ? `--memory-trials ${needed}` : null].filter(Boolean);
  return `; too few pairs: ${more} more round${more === 1 ? "" : "s"} needed${flags.length > 0 ? ` (${flags.join(" ")}, or --auto-sample)` : ""}`;
}

/** Judges a run cell by cell. A single-target run has nothing to compare and is not judged. */
export function judge(results: Results, options: GuardConfig): GuardDecision {
  checkGuardMetrics(options.metrics);
  if (!rolesOf(results)) {
    return {
      pass: true,
      exitCode: EXIT.ok,
      lines: ["guard: a single target, nothing to compare: not judged"],
      failed: [],
      undecided: [],
    };
  }
  // Storm cells are paired across their own trials (and A/A copy), then judged per cell like the others.
  const verdicts: JudgedCell[] = [...verdictsOf(results, options), ...runStormVerdicts(results, options)].filter(
    (v) => v.guarded,
  );
  const lines = verdicts.map((v) => cellLine(v, options) + missingPairs(v));
  const failed = verdicts.filter((v) => v.verdict === "fail").map((v) => `${v.metric} ${cellName(v.cell)}`);
  const undecided = verdicts
    .filter((v) => v.verdict === "missing" || v.undecided)
    .map((v) => `${v.metric} ${cellName(v.cell)}`);
  const tooFew = verdicts.filter((v) => v.verdict === "too-few-pairs");
  if (options.metrics.includes(LEAK_METRIC)) {
    const leak = judgeLeak(results.leak, rolesOf(results)?.baseline ?? "", rolesOf(results)?.candidate ?? "");
    lines.push(...leak.lines);
    failed.push(...leak.failed);
    undecided.push(...leak.undecided);
  }
  const absent = options.metrics.filter((m) => m !== LEAK_METRIC && !verdicts.some((v) => v.metric === m));
  for (const m of absent) {
    lines.push(`${m}: no cell of this run measures it: MISSING`);
    undecided.push(m);
  }
  const exitCode = failed.length > 0 ? EXIT.regression : undecided.length > 0 ? EXIT.noResult : EXIT.ok;
  const mode = options.confidence ? "interval low" : "median";
  // A leak row fails on its verdict, not on a ratio against the ceiling.
  const leakOnly = failed.every((f) => f.startsWith(`${LEAK_METRIC} `));
  lines.push(
    failed.length > 0
      ? `guard: FAIL (${leakOnly ? "leak" : `${mode} above ${options.ceiling}`}) in ${failed.length} cell${failed.length === 1 ? "" : "s"}: ${failed.join("; ")}`
      : undecided.length > 0
        ? `guard: NO VERDICT for ${undecided.join("; ")}${tooFewAdvice(tooFew, options)}`
        : `guard: PASS (${verdicts.length} guarded cells, ${mode} <= ${options.ceiling} in each)`,
  );
  return { pass: exitCode === EXIT.ok, exitCode, lines, failed, undecided };
}
