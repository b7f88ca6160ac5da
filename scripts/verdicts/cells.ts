// Per-cell verdicts (pure): every metric is judged in every latency case and every memory cell on its
// own, from the paired ratios candidate/baseline of that cell: their median, its bootstrap interval,
// the cell's A/A band (the baseline against a second copy of itself, interleaved in the same rounds),
// and the smallest change the cell could have shown. A pooled figure is only ever a summary line:
// pooling hides a regression confined to one cell.
import { LATENCY_CASES } from "../../scenarios/lib/protocol.js";
import type { MinEffect } from "../results/metric-floor.js";
import {
  METRICS,
  type Metric,
  metricOf,
  practicalTolerance,
  type StormMetric,
  unitOf,
} from "../results/metric-names.js";
import type { Outcome } from "../results/outcome.js";
import type { LatencyRow, MemoryRow, Results } from "../results/schema.js";
import type { CellVerdict, DecisionInterval } from "../results/verdict-record.js";
import {
  bootstrapRatioCI,
  type Interval,
  median,
  normalQuantile,
  type RatioSummary,
  seedFromString,
  summariseRatios,
} from "../util/stats.js";
import { withBusyReason } from "./disturbance.js";
import { isLatencyMetric, metricRatios, type Roles, rolesOf } from "./metrics.js";
import { outcomeOf, practicalBand } from "./outcome-rule.js";
import { belowFloor, expectedEffect, notJudgedReason } from "./practical.js";
import { LOOK_LEVEL, matrixOf, underRule } from "./sequential.js";

/** Bootstrap resamples for every interval in a verdict (seeded per metric and cell). */
export const RESAMPLES = 4000;
/** Below this many pairs no direction is ranked. */
export const MIN_PAIRS = 3;
/** Below this many pairs the 95% interval covers the truth well under 95% of the time (test/stats): "indicative". */
export const RELIABLE_PAIRS = 8;
/**
 * The guard decides only from this many pairs (--guard-min-pairs): the first pair count at which the
 * interval's coverage is within 2 points of 95% (93.0-96.8% at 8 pairs; docs/statistics.md).
 */
export const GUARD_MIN_PAIRS = 8;
/** z quantiles for the smallest detectable change: two-sided 5% test, 80% power. */
const Z_ALPHA = 1.959964;
const Z_POWER = 0.841621;

/** The regression guard (--ceiling, --guard, --guard-confidence, --allow-missing): one object, one name. */
export interface GuardConfig {
  ceiling: number;
  metrics: readonly string[];
  /** FAIL only when the interval's lower bound exceeds the ceiling (default: the median does). */
  confidence?: boolean;
  /** Judge a cell on the pairs it has when some are missing (default: such a cell is "missing"). */
  allowMissing?: boolean;
  /** PASS/FAIL needs at least this many pairs (default GUARD_MIN_PAIRS); fewer: "too-few-pairs", exit 3. */
  minPairs?: number;
}

export interface MetricVerdicts {
  metric: Metric;
  guarded: boolean;
  cells: CellVerdict[];
  /** Every pair of every cell pooled: a summary line, never the basis of a verdict. */
  pooled: RatioSummary | null;
}

/** The cell id of a memory row: "8192x4/memory". */
export function memoryCellId(r: Pick<MemoryRow, "scriptBytes" | "clients" | "mode">): string {
  return `${r.scriptBytes}x${r.clients}/${r.mode}`;
}

export const CASE_ORDER: readonly string[] = LATENCY_CASES;

function caseRank(c: string): number {
  const i = CASE_ORDER.indexOf(c);
  return i < 0 ? CASE_ORDER.length : i;
}

/** The cells of a matrix in report order (cases in protocol order; memory by size, clients, mode). */
export function latencyCellIds(rows: readonly LatencyRow[]): string[] {
  return [...new Set(rows.map((r) => r.case as string))].sort(
    (a, b) => caseRank(a) - caseRank(b) || a.localeCompare(b),
  );
}

export function memoryCellIds(rows: readonly MemoryRow[]): string[] {
  const cells = new Map<string, MemoryRow>();
  for (const r of rows) if (!cells.has(memoryCellId(r))) cells.set(memoryCellId(r), r);
  return [...cells.values()]
    .sort((a, b) => a.scriptBytes - b.scriptBytes || a.clients - b.clients || a.mode.localeCompare(b.mode))
    .map(memoryCellId);
}

/** The rows of one cell of a metric's matrix. */
function cellRows(results: Pick<Results, "latency" | "memory">, metric: Metric, cell: string) {
  return isLatencyMetric(metric)
    ? { latency: results.latency.filter((r) => r.case === cell), memory: [] }
    : { latency: [], memory: results.memory.filter((r) => memoryCellId(r) === cell) };
}

/**
 * The A/A rows and roles. Today's runs keep only the second baseline copy ("A2") under `aa`: its
 * partner is the baseline itself, measured in the same rounds. Older runs kept both copies there.
 */
export function aaPairing(
  results: Results,
  roles: Roles,
): { rows: Pick<Results, "latency" | "memory">; roles: Roles } | null {
  const aa = results.aa;
  if (!aa || (aa.latency.length === 0 && aa.memory.length === 0)) return null;
  const names = [...new Set([...aa.latency, ...aa.memory].map((r) => r.variant))].sort();
  if (names.length >= 2) return { rows: aa, roles: { baseline: names[0] as string, candidate: names[1] as string } };
  const copy = names[0] as string;
  return {
    rows: {
      latency: [...results.latency.filter((r) => r.variant === roles.baseline), ...aa.latency],
      memory: [...results.memory.filter((r) => r.variant === roles.baseline), ...aa.memory],
    },
    roles: { baseline: roles.baseline, candidate: copy },
  };
}

/** The A/A noise band [1/m, m], m the farther bound of the A/A median's interval from 1. */
export function aaBandOf(aa: RatioSummary | null): Interval | null {
  if (!aa) return null;
  const m = Math.max(aa.ci.high, 1 / aa.ci.low, aa.median, 1 / aa.median);
  return { low: 1 / m, high: m };
}

/**
 * The smallest change this cell could have ranked, as a ratio above 1: the change whose interval, at
 * the width this cell's interval has, would clear 1.0 with 80% probability (a two-sided 5% test):
 * exp(half-width of the log interval x (z(0.975) + z(0.8)) / z(0.975)); at least the A/A band's edge,
 * since nothing inside the band is ranked. Null with fewer than 2 pairs (no interval).
 */
export function detectableChange(
  summary: RatioSummary | null,
  band: Interval | null,
  decision: DecisionInterval | null = null,
): number | null {
  if (!summary || summary.n < 2) return null;
  const ci = decision ?? summary.ci;
  // The interval's own level sets its z: the sequential rule's wider interval needs a larger change.
  const zLevel = decision ? normalQuantile(1 - (1 - decision.level) / 2) : Z_ALPHA;
  const half = (Math.log(ci.high) - Math.log(ci.low)) / 2;
  const mde = Math.exp((half * (zLevel + Z_POWER)) / zLevel);
  return band ? Math.max(mde, band.high) : mde;
}

/** Planned pairs per cell: the configured trials, or more where auto-sampling added rounds. */
function plannedOf(results: Results, metric: Metric, rows: ReturnType<typeof cellRows>): number {
  const config = results.run.config ?? {};
  const key = isLatencyMetric(metric) ? "trials" : "memoryTrials";
  const configured = typeof config[key] === "number" ? (config[key] as number) : 0;
  const all: { trial: number }[] = [...rows.latency, ...rows.memory];
  const seen = all.reduce((m, r) => Math.max(m, r.trial), 0);
  return Math.max(configured, seen);
}

function ratioText(x: number): string {
  return x.toFixed(3);
}

/** Decides one cell. Pure; exported for the tests of each rule. */
export function decideCell(
  input: {
    /** A storm metric's verdict is returned under this name too; storm-verdict.ts types it as such. */
    metric: Metric | StormMetric;
    cell: string;
    summary: RatioSummary | null;
    plannedPairs: number;
    band: Interval | null;
    /** The baseline's median in the cell: the absolute size of a change, for the practical floor. */
    baselineMedian?: number | null;
    /** The run's --min-effect, applied to the metric's own floor rule; null or absent: no floor. */
    floor?: MinEffect | null;
    /** Why a higher figure is the expected effect of the change (practical.ts), or null. */
    expected?: string | null;
    /** The interval the sequential rule judges on (wider than the 95% one); absent: the 95% one. */
    decision?: DecisionInterval | null;
  },
  guard: GuardConfig | null,
): CellVerdict {
  const { metric, cell, summary, plannedPairs, band } = input;
  const guarded = guard?.metrics.includes(metric) === true;
  const pairs = summary?.n ?? 0;
  const judged = input.decision ?? summary?.ci ?? null;
  // Null: the metric's floor reaches this cell's baseline, so no lower figure could leave it (not judged).
  const floorTolerance = input.floor ? practicalTolerance(metric, input.baselineMedian ?? null, input.floor) : 0;
  const tolerance = floorTolerance ?? 0;
  const practical = practicalBand(tolerance, band);
  const base = {
    metric: metric as Metric,
    unit: unitOf(metric),
    cell,
    pairs,
    plannedPairs,
    median: summary?.median ?? null,
    ciLow: summary && summary.n > 1 ? summary.ci.low : null,
    ciHigh: summary && summary.n > 1 ? summary.ci.high : null,
    aaLow: band?.low ?? null,
    aaHigh: band?.high ?? null,
    guarded,
    detectable: detectableChange(summary, band, input.decision ?? null),
    indicative: pairs < RELIABLE_PAIRS,
    undecided: false,
    outcome:
      summary && judged && floorTolerance !== null
        ? outcomeOf({ median: summary.median, interval: judged, practical, tolerance, enough: pairs >= MIN_PAIRS })
        : ("UNKNOWN" as Outcome),
    ...(input.decision ? { decision: input.decision } : {}),
  };
  const missingCount = Math.max(0, plannedPairs - pairs);
  if (!summary || !judged)
    return {
      ...base,
      outcome: "UNKNOWN",
      undecided: !guarded,
      verdict: "missing",
      reason: `no pairs (${plannedPairs} planned)`,
    };
  if (missingCount > 0 && !guard?.allowMissing) {
    const reason = `${pairs} of ${plannedPairs} pairs`;
    return { ...base, outcome: "UNKNOWN", undecided: !guarded, verdict: "missing", reason };
  }
  const inBand = band !== null && summary.median >= band.low && summary.median <= band.high;
  if (guarded && guard) {
    // Below the minimum the interval undercovers: no PASS or FAIL, whatever the median says.
    const needed = guard.minPairs ?? GUARD_MIN_PAIRS;
    if (pairs < needed) {
      const more = needed - pairs;
      return {
        ...base,
        verdict: "too-few-pairs",
        outcome: "UNKNOWN",
        undecided: true,
        reason: `${pairs} pair${pairs === 1 ? "" : "s"}, the guard needs ${needed}: ${more} more round${more === 1 ? "" : "s"}`,
      };
    }
    const c = guard.ceiling;
    const over = guard.confidence ? summary.n > 1 && summary.ci.low > c : summary.median > c;
    const rule = guard.confidence
      ? `interval low ${ratioText(summary.ci.low)} ${over ? ">" : "<="} ceiling ${c}`
      : `median ${ratioText(summary.median)} ${over ? ">" : "<="} ceiling ${c}`;
    if (over && inBand) {
      return { ...base, verdict: "noise", undecided: true, reason: `${rule}, but inside the A/A band: no verdict` };
    }
    if (over) return { ...base, verdict: "fail", reason: rule };
    if (inBand) return { ...base, verdict: "noise", reason: `${rule}; inside the A/A band` };
    return { ...base, verdict: "pass", reason: rule };
  }
  if (floorTolerance === null) {
    const reason = notJudgedReason(metric, input.baselineMedian ?? null, input.floor ?? {});
    return { ...base, outcome: "UNKNOWN", undecided: true, verdict: "not-judged", reason };
  }
  if (summary.n < MIN_PAIRS)
    return {
      ...base,
      undecided: true,
      verdict: "noise",
      reason: `${pairs} pair${pairs === 1 ? "" : "s"}: too few to rank`,
    };
  return { ...base, ...openVerdict(input, summary, judged, practical, tolerance, band) };
}

/** An interval as the reasons print it: "0.935–0.991". */
function rangeText(i: Interval): string {
  return `${ratioText(i.low)}–${ratioText(i.high)}`;
}

/** The verdict of an unguarded cell with enough pairs: the word its outcome takes, and why. */
function openVerdict(
  input: Parameters<typeof decideCell>[0],
  summary: RatioSummary,
  judged: Interval,
  practical: Interval,
  tolerance: number,
  band: Interval | null,
): Pick<CellVerdict, "verdict" | "reason" | "outcome" | "undecided" | "expected"> {
  const baseline = input.baselineMedian ?? null;
  const outcome = outcomeOf({ median: summary.median, interval: judged, practical, tolerance, enough: true });
  const decided = { outcome, undecided: outcome === "UNKNOWN" };
  const floor = input.floor ? belowFloor(input.metric, summary.median, baseline, input.floor) : null;
  // "No practical change" claims the change is small: the whole interval lies inside the floor.
  if (outcome === "SAME") return { ...decided, verdict: "no-practical-change", reason: floor ?? "inside the floor" };
  if (outcome === "DIFFERENT") {
    if (summary.median < 1) return { ...decided, verdict: "lower", reason: "interval below 1.0" };
    return input.expected
      ? { ...decided, verdict: "higher", expected: true, reason: input.expected }
      : { ...decided, verdict: "higher", reason: "interval above 1.0" };
  }
  const level = input.decision ? `${+(input.decision.level * 100).toFixed(1)}% ` : "";
  if (judged.low <= 1 && judged.high >= 1)
    return { ...decided, verdict: "noise", reason: `${level}interval spans 1.0` };
  // Inside the band the baseline differs from its own copy as much: not told from noise, and not SAME.
  if (band && judged.low >= band.low && judged.high <= band.high)
    return {
      ...decided,
      verdict: "noise",
      reason: `interval ${rangeText(judged)} inside the A/A band ${rangeText(band)}`,
    };
  const inBand = band !== null && summary.median >= band.low && summary.median <= band.high;
  if (inBand) return { ...decided, verdict: "noise", reason: "median inside the A/A band" };
  return { ...decided, verdict: "noise", reason: `${floor ?? "below the floor"}, but the interval reaches beyond it` };
}

/**
 * The sign test a verdict rests on, when the cell's sequential memory rounds stopped early on one
 * (results.memoryRounds) for a metric it tested and the verdict agrees with it; else undefined.
 */
function signTestOf(results: Results, v: CellVerdict): CellVerdict["signTest"] {
  const memoryRounds = metricOf(v.metric).matrix === "memory" && metricOf(v.metric).stopsRounds === true;
  if (!v.indicative || v.guarded || !memoryRounds) return undefined;
  const why = results.memoryRounds?.cells.find((c) => c.cell === v.cell)?.why;
  if (why === "clear" && (v.verdict === "higher" || v.verdict === "lower")) return why;
  if (why === "equivalent" && v.verdict === "no-practical-change") return why;
  return undefined;
}

/** The metrics a run has rows for, in report order. */
export function presentMetrics(results: Pick<Results, "latency" | "memory">): Metric[] {
  // Results from before the client measured a recent figure lack it: no empty table for it.
  return METRICS.filter((m) => {
    const recent = metricOf(m).recent === true;
    if (isLatencyMetric(m))
      return recent ? results.latency.some((r) => typeof r[m] === "number") : results.latency.length > 0;
    return recent ? results.memory.some((r) => typeof r[m] === "number") : results.memory.length > 0;
  });
}

/** The guard settings recorded in a run's config (bench writes them there), or null. */
export function guardFromConfig(config: Record<string, unknown>): GuardConfig | null {
  const ceiling = config.ceiling;
  if (typeof ceiling !== "number") return null;
  const metrics = Array.isArray(config.guard) ? (config.guard as unknown[]).map(String) : [];
  return {
    ceiling,
    metrics,
    confidence: config.guardConfidence === true,
    allowMissing: config.allowMissing === true,
    // A run from before --guard-min-pairs was judged without a minimum: re-judging it applies today's.
    minPairs: typeof config.guardMinPairs === "number" ? config.guardMinPairs : GUARD_MIN_PAIRS,
  };
}

/** The median of one variant's ok figures of a metric in a cell, or null. */
function variantMedian(rows: ReturnType<typeof cellRows>, field: string, variant: string): number | null {
  const all = [...rows.latency, ...rows.memory] as unknown as Array<Record<string, unknown>>;
  const xs = all
    .filter((r) => r.ok === true && r.variant === variant)
    .map((r) => r[field])
    .filter((x): x is number => typeof x === "number" && Number.isFinite(x));
  return xs.length > 0 ? median(xs) : null;
}

/** One cell's paired ratios candidate/baseline of a metric and the baseline's median (none without roles). */
export function cellPairs(
  results: Results,
  metric: Metric,
  cell: string,
): { ratios: number[]; baselineMedian: number | null } {
  const roles = rolesOf(results);
  if (!roles) return { ratios: [], baselineMedian: null };
  const rows = cellRows(results, metric, cell);
  return { ratios: metricRatios(metric, rows, roles), baselineMedian: variantMedian(rows, metric, roles.baseline) };
}

/**
 * The sequential rule's interval of a cell's ratios: the same seeded bootstrap (the same draws as the
 * 95% interval) read at the per-look level. Null without pairs.
 */
function decisionInterval(ratios: readonly number[], seed: number): DecisionInterval | null {
  if (ratios.length === 0) return null;
  const ci = bootstrapRatioCI(ratios, { resamples: RESAMPLES, seed, confidence: LOOK_LEVEL });
  return { level: LOOK_LEVEL, low: ci.low, high: ci.high };
}

/** Every metric's per-cell verdicts and pooled summary. Empty when the run has nothing to compare. */
export function metricVerdicts(
  results: Results,
  guard: GuardConfig | null,
  floor: MinEffect | null = null,
): MetricVerdicts[] {
  const roles = rolesOf(results);
  if (!roles) return [];
  const aa = aaPairing(results, roles);
  // A "noise" cell measured on a busy machine says so in its reason.
  const busy = withBusyReason(results);
  return presentMetrics(results).map((metric) => {
    const cells = isLatencyMetric(metric) ? latencyCellIds(results.latency) : memoryCellIds(results.memory);
    const sequential = underRule(results.run.config ?? {}, matrixOf(metric));
    const verdicts = cells.map((cell) => {
      const rows = cellRows(results, metric, cell);
      const seed = seedFromString(`${metric}:${cell}`);
      const ratios = metricRatios(metric, rows, roles);
      const summary = summariseRatios(ratios, { resamples: RESAMPLES, seed });
      const aaSummary = aa
        ? summariseRatios(metricRatios(metric, cellRows(aa.rows, metric, cell), aa.roles), {
            resamples: RESAMPLES,
            seed: seed ^ 0xaa,
          })
        : null;
      const chunks = {
        baseline: isLatencyMetric(metric) ? variantMedian(rows, "chunks", roles.baseline) : null,
        candidate: isLatencyMetric(metric) ? variantMedian(rows, "chunks", roles.candidate) : null,
      };
      const v = busy(
        decideCell(
          {
            metric,
            cell,
            summary,
            plannedPairs: plannedOf(results, metric, rows),
            band: aaBandOf(aaSummary),
            baselineMedian: variantMedian(rows, metric, roles.baseline),
            floor,
            expected: expectedEffect(metric, chunks),
            decision: sequential ? decisionInterval(ratios, seed) : null,
          },
          guard,
        ),
        isLatencyMetric(metric) ? "latency" : "memory",
      );
      const signTest = signTestOf(results, v);
      return signTest ? { ...v, signTest } : v;
    });
    const pooled = summariseRatios(metricRatios(metric, results, roles), {
      resamples: RESAMPLES,
      seed: seedFromString(metric),
    });
    return { metric, guarded: guard?.metrics.includes(metric) ?? false, cells: verdicts, pooled };
  });
}

/** The flat `verdicts` array of results.json. */
export function verdictsOf(results: Results, guard: GuardConfig | null, floor: MinEffect | null = null): CellVerdict[] {
  return metricVerdicts(results, guard, floor).flatMap((m) => m.cells);
}

/**
 * Auto-sampling: the guarded cells that another interleaved round could still decide. A cell whose
 * interval straddles the ceiling (low <= C < high), or that is above the ceiling inside its A/A band,
 * gets another round; a missing cell does not (more rounds cannot bring back a failed pair).
 */
export function cellsToResample(results: Results, guard: GuardConfig): { latency: string[]; memory: string[] } {
  const latency = new Set<string>();
  const memory = new Set<string>();
  for (const v of verdictsOf(results, guard)) {
    if (!v.guarded || v.verdict === "missing") continue;
    // Too few pairs to decide: another round is exactly what the cell needs.
    if (v.verdict === "too-few-pairs") {
      (isLatencyMetric(v.metric) ? latency : memory).add(v.cell);
      continue;
    }
    const straddles = v.ciLow !== null && v.ciHigh !== null && v.ciLow <= guard.ceiling && guard.ceiling < v.ciHigh;
    if (!straddles && !v.undecided && v.pairs >= 2) continue;
    (isLatencyMetric(v.metric) ? latency : memory).add(v.cell);
  }
  return { latency: [...latency], memory: [...memory] };
}
