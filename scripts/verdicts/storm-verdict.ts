// Storm cells paired across trials and judged per cell (pure). Trial t of the baseline pairs with
// trial t of the candidate in the same cell (script size, clients, ramp, resume share); each figure
// becomes a median of paired ratios candidate/baseline with its bootstrap interval, and the A/A copy
// (the baseline again, in the same rounds) gives the cell's noise band. A pair counts only when both
// storms served every client: a storm with failed clients carried less load, so its peaks and
// percentiles are not comparable. Every pair that does not count is named, never dropped silently.

import type { MinEffect } from "../results/metric-floor.js";
import { metricOf, STORM_METRIC_NAMES, STORM_METRICS, type StormMetric } from "../results/metric-names.js";
import type { Results } from "../results/schema.js";
import type { StormRow } from "../results/storm-record.js";
import type { MissingPair, StormVerdict } from "../results/verdict-record.js";
import { median, type RatioSummary, seedFromString, summariseRatios } from "../util/stats.js";
import { aaBandOf, decideCell, type GuardConfig, RESAMPLES } from "./cells.js";
import { rolesOf } from "./metrics.js";

/** What the guard judges in a storm cell when --guard does not say (the metric table's guardedByDefault). */
const DEFAULT_STORM_GUARD: readonly StormMetric[] = STORM_METRIC_NAMES.filter((m) => metricOf(m).guardedByDefault);

export function isStormMetric(m: string): m is StormMetric {
  return m in STORM_METRICS;
}

/** The identity of a storm cell: "1024x500" plus ramp and resume share when set. */
export function stormCellKey(r: Pick<StormRow, "scriptBytes" | "clients" | "rampMs" | "resumeRatio">): string {
  const ramp = r.rampMs > 0 ? `/ramp${r.rampMs}` : "";
  const mix = r.resumeRatio < 1 ? `/resume${r.resumeRatio}` : "";
  return `${r.scriptBytes}x${r.clients}${ramp}${mix}`;
}

export interface StormPairs {
  /** Ratios candidate/baseline of the trials where both rows count, in trial order. */
  ratios: number[];
  trials: number[];
  /** The baseline's figure of each counted pair: the absolute size of a change, for the practical floor. */
  baselines: number[];
  missing: MissingPair[];
}

/** Why a row does not count for a pair, or null when it does. */
function unusable(row: StormRow | undefined, variant: string, value: (r: StormRow) => number | null): string | null {
  if (!row) return `${variant} has no row`;
  if (row.ok < row.clients) {
    const kinds = Object.entries(row.failures)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    return `${variant} ${row.ok}/${row.clients} ok${kinds ? ` (${kinds})` : ""}`;
  }
  const v = value(row);
  if (v === null || !Number.isFinite(v) || v <= 0) return `${variant} has no figure`;
  return null;
}

/**
 * Pairs one figure of one cell over trials 1..planned (and any later trial present): the ratios that
 * count and, for every other trial, why not.
 */
export function stormPairs(
  rows: readonly StormRow[],
  cell: string,
  roles: { baseline: string; candidate: string },
  metric: StormMetric,
  planned: number,
): StormPairs {
  const key = STORM_METRICS[metric];
  const value = (r: StormRow) => r[key] as number | null;
  const inCell = rows.filter((r) => stormCellKey(r) === cell);
  const find = (variant: string, trial: number) => inCell.find((r) => r.variant === variant && r.trial === trial);
  const last = Math.max(planned, ...inCell.map((r) => r.trial));
  const out: StormPairs = { ratios: [], trials: [], baselines: [], missing: [] };
  for (let t = 1; t <= last; t++) {
    const b = find(roles.baseline, t);
    const c = find(roles.candidate, t);
    const why = [unusable(b, roles.baseline, value), unusable(c, roles.candidate, value)].filter(Boolean);
    if (why.length > 0) {
      out.missing.push({ trial: t, reason: `trial ${t}: ${why.join("; ")}` });
      continue;
    }
    out.ratios.push((value(c as StormRow) as number) / (value(b as StormRow) as number));
    out.trials.push(t);
    out.baselines.push(value(b as StormRow) as number);
  }
  return out;
}

/** Storm cells in first-seen order. */
export function stormCellIds(rows: readonly StormRow[]): string[] {
  return [...new Set(rows.map(stormCellKey))];
}

/**
 * The verdicts of every storm cell for `metrics` (the guarded ones and any others asked for). `aa`:
 * the A/A copy's variant name when the run has one. `planned`: the trials configured per cell.
 */
export function stormVerdicts(
  rows: readonly StormRow[],
  roles: { baseline: string; candidate: string },
  o: {
    metrics: readonly StormMetric[];
    guard: GuardConfig | null;
    planned: number;
    aa: string | null;
    floor?: MinEffect | null;
  },
): StormVerdict[] {
  const out: StormVerdict[] = [];
  for (const cell of stormCellIds(rows)) {
    for (const metric of o.metrics) {
      const pairs = stormPairs(rows, cell, roles, metric, o.planned);
      const seed = seedFromString(`${metric}:${cell}`);
      const summary: RatioSummary | null = summariseRatios(pairs.ratios, { resamples: RESAMPLES, seed });
      const aaPairs = o.aa ? stormPairs(rows, cell, { baseline: roles.baseline, candidate: o.aa }, metric, 0) : null;
      const aaSummary = aaPairs ? summariseRatios(aaPairs.ratios, { resamples: RESAMPLES, seed: seed ^ 0xaa }) : null;
      const v = decideCell(
        {
          metric,
          cell,
          summary,
          plannedPairs: pairs.ratios.length + pairs.missing.length,
          band: aaBandOf(aaSummary),
          baselineMedian: pairs.baselines.length > 0 ? median(pairs.baselines) : null,
          floor: o.floor ?? null,
        },
        o.guard,
      );
      out.push({ ...v, metric, missing: pairs.missing });
    }
  }
  return out;
}

/** The storm metrics a run judges or shows: the guarded ones, else the defaults. */
function stormMetricsOf(guard: GuardConfig | null): StormMetric[] {
  const guarded = (guard?.metrics ?? []).filter(isStormMetric);
  return [...new Set<StormMetric>([...DEFAULT_STORM_GUARD, ...guarded])];
}

/**
 * A run's storm verdicts, as results.json keeps them under `verdicts` and report.md shows them: every
 * storm cell, for the guarded storm figures and the default ones. Empty for a single target.
 */
export function runStormVerdicts(
  results: Results,
  guard: GuardConfig | null,
  floor: MinEffect | null = null,
): StormVerdict[] {
  const roles = rolesOf(results);
  if (!roles || !results.storm?.length) return [];
  const trials = results.run.config?.stormTrials;
  return stormVerdicts(results.storm, roles, {
    metrics: stormMetricsOf(guard),
    guard,
    planned: typeof trials === "number" ? trials : 1,
    aa: stormAaVariant(results.storm),
    floor,
  });
}

/** The A/A copy's variant name in a run's storm rows, or null when the run had none. */
function stormAaVariant(rows: readonly StormRow[] | undefined): string | null {
  return rows?.find((r) => r.aa === true)?.variant ?? null;
}
