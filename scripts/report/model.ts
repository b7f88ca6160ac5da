// results.json -> the report model: every figure the Markdown and HTML renderers show, computed once.
// Pure and deterministic (bootstrap seeds derive from metric names), so a report re-renders byte for byte.

import { describeRef } from "../refs/checkout-plan.js";
import { memoryCellName } from "../results/cell-names.js";
import type { LeakRow } from "../results/leak-record.js";
import { type MinEffect, minEffectFromConfig } from "../results/metric-floor.js";
import {
  LATENCY_METRICS,
  type LatencyMetric,
  MEMORY_METRICS,
  type MemoryMetric,
  metricOf,
} from "../results/metric-names.js";
import type { RefRecord } from "../results/ref.js";
import type {
  IntervalStats,
  LatencyRow,
  MemoryRow,
  Results,
  RunFixture,
  RunInfo,
  SeedRecord,
} from "../results/schema.js";
import type { StormRow } from "../results/storm-record.js";
import type { StormVerdict } from "../results/verdict-record.js";
import { size } from "../util/format.js";
import { maxValue, median, type RatioSummary, seedFromString, summariseRatios } from "../util/stats.js";
import {
  CASE_ORDER,
  type GuardConfig,
  guardFromConfig,
  type MetricVerdicts,
  metricVerdicts,
  RESAMPLES,
} from "../verdicts/cells.js";
import { caseRatios, cellKey, type Roles, rolesOf } from "../verdicts/metrics.js";
import { runStormVerdicts } from "../verdicts/storm-verdict.js";
import { type Conditions, conditionsOf, harnessCommitText } from "./conditions.js";
import { type FailureReport, failureReport } from "./failures.js";
import type { HistoryContext } from "./history-section.js";
import { type LoadModel, loadModel } from "./load-section.js";
import { type SplitAtPeak, splitAtPeak } from "./rss-split-section.js";
import { type TargetsModel, targetsModel } from "./targets.js";

export interface Pair<T> {
  baseline: T;
  candidate: T;
}

/** Per metric of a matrix, its median per variant over the ok trials (null where no trial records it). */
export type Medians<K extends string> = Record<K, Pair<number | null>>;

export interface LatencyCaseModel {
  case: string;
  label: string;
  trials: Pair<number>;
  /** Every latency metric's median of the ok trials, by metric. */
  medians: Medians<LatencyMetric>;
  chunks: Pair<number[]>;
  /** Per-case paired ratios of the table's main timer (its per-variant columns): median and interval. */
  ratio: RatioSummary | null;
  /** Every trial's figure of each latency metric (null for failed trials and unrecorded figures), by trial number, for the charts. */
  points: Pair<{ trial: number; values: Record<LatencyMetric, number | null> }[]>;
  /** Median CPU time of the target per trial (ms); null when the results do not record it. */
  targetCpuMs: Pair<number | null>;
}

export interface MemoryCellModel {
  key: string;
  scriptBytes: number;
  clients: number;
  mode: string;
  trials: Pair<number>;
  /** Every memory metric's median of the ok trials, by metric (probeMaxMs: the median of the per-trial maxima). */
  medians: Medians<MemoryMetric>;
  bytesThroughCompletion: Pair<number | null>;
  /** The RSS lane's achieved interval: median of the trials' medians, worst p99 and max. */
  interval: Pair<{ median: number; p99: number; max: number } | null>;
  /** The heap lane's achieved interval, the same way; null in results from before the two lanes. */
  heapInterval: Pair<{ median: number; p99: number; max: number } | null>;
  /** The longest stretch without a heap answer in any ok trial (ms). */
  heapGapMaxMs: Pair<number | null>;
  /** Median CPU time of the target per trial (ms). */
  targetCpuMs: Pair<number | null>;
  /** The samples file of each variant's first ok trial. */
  samplesFile: Pair<string | null>;
  /** Every trial's samples file by trial number (null for a trial without one), for the timelines. */
  trialFiles: Pair<{ trial: number; file: string | null }[]>;
  /** The RSS split at each trial's RSS-peak tick, medians of the ok trials; null without one. */
  rssSplit: Pair<SplitAtPeak | null>;
}

export interface FailedRow {
  what: string;
  error: string;
}

export interface ReportModel {
  /** Baseline and candidate; null when the run has a single target (or none). */
  roles: Roles | null;
  /** The one variant of a single-target run: its figures are shown without ratios. */
  single: string | null;
  otherVariants: string[];
  variantDescriptions: string[];
  /** The load phase (--binding): each variant's seeds, one per fixture. */
  seeds: (SeedRecord & { variant: string })[];
  latency: LatencyCaseModel[];
  memory: MemoryCellModel[];
  /** Per metric, its per-cell verdicts and pooled summary line. */
  metrics: MetricVerdicts[];
  guard: GuardConfig | null;
  hasAa: boolean;
  /** Auto-sampling, when it ran: its budget and the rounds each guarded cell took. */
  autoSample: Results["autoSample"] | null;
  /** Sequential memory rounds, when they ran: budget, and per cell its pairs and why no more. */
  memoryRounds: Results["memoryRounds"] | null;
  /** --attribute's profiles: their sites and the profiling trials' peaks; null when it did not run. */
  attribution: Results["attribution"] | null;
  failures: FailedRow[];
  /** Stop reason, target crashes, failed trials grouped by error kind, figures of failed memory trials. */
  failureReport: FailureReport;
  environment: string;
  notMeasured: string;
  /** A busy machine at the start of the run (1-minute load average above the core count), or null. */
  loadWarning: string | null;
  interrupted: boolean;
  startedAt: string;
  /** --leak-cycles: one row per variant (empty when the run had no leak cycles). */
  leak: LeakRow[];
  /** --storm: one row per storm cell, variant and trial (empty when the run had no storm). */
  storm: StormRow[];
  /** Storm cells paired across trials and judged per cell (empty without a comparison or storm rows). */
  stormVerdicts: StormVerdict[];
  /** What each target ran on, its checkout and build, and what each case moved through completion. */
  targets?: TargetsModel;
  /** The run's settings, machine and command, for the summary's conditions line. */
  conditions: Conditions;
  /** The guard's lines (guard.txt) when the report was judged, else null. */
  guardLines: string[] | null;
  /** The machine's load per round and cell (disturbed rounds), or null in results without readings. */
  load: LoadModel | null;
}

/** What a re-render may decide differently from the recorded run: `report --ceiling`, `--min-effect`. */
export interface ModelOptions {
  /** The guard to judge with (undefined: the one recorded in the run's config). */
  guard?: GuardConfig | null;
  minEffect?: MinEffect;
  /** The guard's decision lines, shown in the report exactly as guard.txt holds them. */
  guardLines?: string[] | null;
  /** This run against the history store's series (report.md's History section), when there is one. */
  history?: HistoryContext | null;
}

const CASE_LABELS: Record<string, string> = {
  snapshot: "snapshot",
  "resume-none": "resume, no new events",
  "resume-one": "resume, one event",
  "resume-many": "resume, all events after the cursor",
  "thread-snapshot": "thread snapshot",
  "thread-resume": "thread resume, its events after its cursor",
};

function okValues<R extends { ok: boolean }>(rows: readonly R[], value: (r: R) => number | null): number[] {
  const out: number[] = [];
  for (const r of rows) {
    const v = r.ok ? value(r) : null;
    if (typeof v === "number" && Number.isFinite(v)) out.push(v);
  }
  return out;
}

function medianOrNull(xs: readonly number[]): number | null {
  return xs.length > 0 ? median(xs) : null;
}

function maxOrNull(xs: readonly number[]): number | null {
  return xs.length > 0 ? maxValue(xs) : null;
}

function pairOf<T>(roles: Roles, f: (variant: string) => T): Pair<T> {
  return { baseline: f(roles.baseline), candidate: f(roles.candidate) };
}

function byTrial<R extends { trial: number }>(rows: readonly R[]): R[] {
  return [...rows].sort((a, b) => a.trial - b.trial);
}

/** The metric shown per variant in the latency table, beside its paired ratio (the table's main timer). */
export const MAIN_TIMER: LatencyMetric =
  LATENCY_METRICS.find((m) => metricOf(m).column === "per-variant") ?? "completionMs";

/** A latency row's figure of a metric: a number, or null (failed, or not recorded in older results). */
function figureOf(r: LatencyRow, metric: LatencyMetric): number | null {
  return r.ok ? (r[metric] ?? null) : null;
}

function latencyModel(rows: readonly LatencyRow[], roles: Roles): LatencyCaseModel[] {
  const cases = [...new Set(rows.map((r) => r.case as string))].sort((a, b) => {
    const ia = CASE_ORDER.indexOf(a);
    const ib = CASE_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  return cases.map((kase) => {
    const inCase = rows.filter((r) => r.case === kase);
    const byVariant = new Map<string, LatencyRow[]>();
    // Each variant's rows once: a single target's million trials are not filtered per figure.
    const of = (v: string) => {
      if (!byVariant.has(v)) byVariant.set(v, byTrial(inCase.filter((r) => r.variant === v)));
      return byVariant.get(v) as LatencyRow[];
    };
    const ratios = roles.baseline === roles.candidate ? [] : caseRatios(MAIN_TIMER, rows, roles, kase);
    const byMetric = <T>(f: (m: LatencyMetric) => T) =>
      Object.fromEntries(LATENCY_METRICS.map((m) => [m, f(m)])) as Record<LatencyMetric, T>;
    return {
      case: kase,
      label: CASE_LABELS[kase] ?? kase,
      trials: pairOf(roles, (v) => of(v).filter((r) => r.ok).length),
      medians: byMetric((m) => pairOf(roles, (v) => medianOrNull(okValues(of(v), (r) => r[m] ?? null)))),
      chunks: pairOf(roles, (v) => [...new Set(okValues(of(v), (r) => r.chunks))].sort((a, b) => a - b)),
      ratio: summariseRatios(ratios, { resamples: RESAMPLES, seed: seedFromString(`${MAIN_TIMER}:${kase}`) }),
      points: pairOf(roles, (v) => of(v).map((r) => ({ trial: r.trial, values: byMetric((m) => figureOf(r, m)) }))),
      targetCpuMs: pairOf(roles, (v) => medianOrNull(okValues(of(v), (r) => r.targetCpuMs ?? null))),
    };
  });
}

/** A cadence over a cell's ok trials: the median of their medians, the worst p99 and max. */
function pooledInterval(
  rows: readonly MemoryRow[],
  f: (r: MemoryRow) => IntervalStats | null,
): { median: number; p99: number; max: number } | null {
  const iv = rows
    .filter((r) => r.ok)
    .map(f)
    .filter((x): x is IntervalStats => x !== null);
  if (iv.length === 0) return null;
  return {
    median: median(iv.map((x) => x.median)),
    p99: maxValue(iv.map((x) => x.p99)),
    max: maxValue(iv.map((x) => x.max)),
  };
}

function memoryModel(rows: readonly MemoryRow[], roles: Roles): MemoryCellModel[] {
  const cells = new Map<string, MemoryRow>();
  for (const r of rows) if (!cells.has(cellKey(r))) cells.set(cellKey(r), r);
  const ordered = [...cells.values()].sort(
    (a, b) => a.scriptBytes - b.scriptBytes || a.clients - b.clients || a.mode.localeCompare(b.mode),
  );
  return ordered.map((cell) => {
    const key = cellKey(cell);
    const of = (v: string) => byTrial(rows.filter((r) => cellKey(r) === key && r.variant === v));
    const med = (f: (r: MemoryRow) => number | null) => pairOf(roles, (v) => medianOrNull(okValues(of(v), f)));
    return {
      key,
      scriptBytes: cell.scriptBytes,
      clients: cell.clients,
      mode: cell.mode,
      trials: pairOf(roles, (v) => of(v).filter((r) => r.ok).length),
      medians: Object.fromEntries(MEMORY_METRICS.map((m) => [m, med((r) => r[m])])) as Medians<MemoryMetric>,
      bytesThroughCompletion: med((r) => r.bytesThroughCompletion),
      interval: pairOf(roles, (v) => pooledInterval(of(v), (r) => r.sampleIntervalMs)),
      heapInterval: pairOf(roles, (v) => pooledInterval(of(v), (r) => r.heapIntervalMs ?? null)),
      heapGapMaxMs: pairOf(roles, (v) => maxOrNull(okValues(of(v), (r) => r.heapGapMaxMs ?? null))),
      targetCpuMs: med((r) => r.targetCpuMs ?? null),
      samplesFile: pairOf(roles, (v) => of(v).find((r) => r.ok && r.samplesFile)?.samplesFile ?? null),
      trialFiles: pairOf(roles, (v) => of(v).map((r) => ({ trial: r.trial, file: r.samplesFile }))),
      rssSplit: pairOf(roles, (v) => splitAtPeak(of(v))),
    };
  });
}

function failuresOf(results: Results): FailedRow[] {
  const out: FailedRow[] = [];
  const add = (prefix: string, latency: readonly LatencyRow[], memory: readonly MemoryRow[]) => {
    for (const r of latency) {
      if (!r.ok) out.push({ what: `${prefix}${r.case} ${r.variant} trial ${r.trial}`, error: r.error ?? "failed" });
    }
    for (const r of memory) {
      if (!r.ok) {
        const cell = memoryCellName(r);
        out.push({ what: `${prefix}memory ${cell} ${r.variant} trial ${r.trial}`, error: r.error ?? "failed" });
      }
    }
  };
  add("", results.latency, results.memory);
  if (results.aa) add("A/A ", results.aa.latency, results.aa.memory);
  return out;
}

function environmentOf(results: Results): string {
  const r = results.run;
  const load = r.loadAverage.map((x) => x.toFixed(2)).join(", ");
  const git = r.gitCommit ? `; ${harnessCommitText(r)}` : "";
  return `harness on Node ${r.node} (the targets' runtimes are under Targets); CPU ${r.cpuModel}; ${r.cores} cores; load average ${load} (1, 5, 15 min, at start)${git}; run started ${r.startedAt}.`;
}

function loadWarningOf(results: Results): string | null {
  const load = results.run.loadAverage[0];
  const cores = results.run.cores;
  if (typeof load !== "number" || !(cores > 0) || load <= cores) return null;
  return `The machine was busy when the run started (1-minute load average ${load.toFixed(2)} on ${cores} cores): timings are noisier than on an idle machine; compare ratios from this run, not absolute times across runs.`;
}

function num(config: Record<string, unknown>, key: string): number | null {
  const v = config[key];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

const count = (n: number) => n.toLocaleString("en-US");

/** "1 KiB" or "1 KiB–8 KiB" for a fixture's script sizes. */
function scriptSizes(f: RunFixture): string {
  return f.scriptBytesMin === f.scriptBytesMax
    ? size(f.scriptBytesMin)
    : `${size(f.scriptBytesMin)}–${size(f.scriptBytesMax)}`;
}

/**
 * The fixtures the run used, as they are: "1,000 projects, 1,000 post-cursor events (scripts: 1 KiB
 * latency; 1 KiB, 8 KiB memory)"; one such text per distinct project/event count.
 */
export function fixturesText(fixtures: NonNullable<RunInfo["fixtures"]>): string | null {
  const used: [string, RunFixture][] = [
    ...(fixtures.latency ? [["latency", fixtures.latency] as [string, RunFixture]] : []),
    ...fixtures.memory.map((f) => ["memory", f] as [string, RunFixture]),
  ];
  const groups = new Map<string, { f: RunFixture; sizes: Map<string, string[]> }>();
  for (const [matrix, f] of used) {
    const key = `${f.projects}/${f.events}`;
    const g = groups.get(key) ?? { f, sizes: new Map<string, string[]>() };
    groups.set(key, g);
    const list = g.sizes.get(matrix) ?? [];
    g.sizes.set(matrix, list);
    if (!list.includes(scriptSizes(f))) list.push(scriptSizes(f));
  }
  if (groups.size === 0) return null;
  return [...groups.values()]
    .map(({ f, sizes }) => {
      const scripts = [...sizes].map(([matrix, list]) => `${list.join(", ")} ${matrix}`).join("; ");
      return `${count(f.projects)} projects, ${count(f.events)} post-cursor events (scripts: ${scripts})`;
    })
    .join(" and ");
}

/** "--cursor 1000 --latest 2000" when the run took its resume cursors from the command line, else null. */
function cursorsText(config: Record<string, unknown>): string | null {
  const s = config.sequences as { cursor?: unknown; latest?: unknown } | undefined;
  const parts = [
    typeof s?.cursor === "number" ? `--cursor ${s.cursor}` : null,
    typeof s?.latest === "number" ? `--latest ${s.latest}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(" ") : null;
}

function notMeasuredOf(results: Results): string {
  const c = results.run.config ?? {};
  const trials = num(c, "trials");
  const memoryTrials = num(c, "memoryTrials");
  const projects = num(c, "projects");
  const events = num(c, "events");
  // The fixtures recorded in the run come first; older results only have the configured defaults.
  const recorded = results.run.fixtures ? fixturesText(results.run.fixtures) : null;
  const cursors = cursorsText(c);
  const parts = [
    "a physical network (all traffic is loopback, 127.0.0.1)",
    trials === 1 && results.latency.length > 0
      ? "more than one run per latency case (1 trial each: no spread within a case)"
      : null,
    memoryTrials === 1 && results.memory.length > 0 ? "spread within a memory cell (one run per memory cell)" : null,
    cursors
      ? `anything beyond the server's own data (cursors given on the command line: ${cursors})`
      : recorded
        ? `anything beyond the fixtures used (${recorded})`
        : projects !== null && events !== null
          ? `anything beyond the fixture (${count(projects)} projects, ${count(events)} post-cursor events, the script sizes listed)`
          : "anything beyond the fixture (its projects, script sizes and events)",
    "other machines or Node versions",
  ].filter((p): p is string => p !== null);
  return `Not measured: ${parts.join("; ")}.`;
}

/** Paths below the project root, shown relative to it (a pasted report should not show the local directory). */
export function relativeToRoot(text: string, root: string | undefined): string {
  if (!root || root === "/") return text;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return text.split(prefix).join("");
}

/** "legacy (node dist/server-under-test/main.js --delivery legacy)", "main (ref main = 0123456789ab)". */
function variantConditions(v: Results["variants"][number], root: string | undefined): string {
  const what =
    v.ref && v.commit ? `ref ${v.ref} = ${v.commit.slice(0, 12)}${v.dirty ? " + uncommitted changes" : ""}` : v.command;
  return relativeToRoot(`${v.name} (${what})`, root);
}

/** Builds the report model from a run's results: a comparison, or a single target's figures. */
export function buildModel(results: Results, options: ModelOptions = {}): ReportModel {
  const roles = rolesOf(results);
  const guard = options.guard === undefined ? guardFromConfig(results.run.config ?? {}) : options.guard;
  const minEffect = options.minEffect ?? minEffectFromConfig(results.run.config ?? {});
  const fixture = results.run.fixtures ? fixturesText(results.run.fixtures) : null;
  const single = roles ? null : (results.variants[0]?.name ?? null);
  const names = results.variants.map((v) => v.name);
  const base = {
    roles,
    otherVariants: roles ? names.filter((n) => n !== roles.baseline && n !== roles.candidate) : names,
    variantDescriptions: results.variants.map((v) =>
      relativeToRoot(
        `${v.name} (${v.role}, ${v.kind}: ${v.command}${v.ref && v.commit ? `; ${describeRef(v as RefRecord)}` : ""})`,
        results.run.projectRoot,
      ),
    ),
    single,
    seeds: results.variants.flatMap((v) => (v.seed ?? []).map((s) => ({ ...s, variant: v.name }))),
    guard,
    conditions: conditionsOf(results, fixture, (v) => variantConditions(v, results.run.projectRoot), minEffect),
    guardLines: options.guardLines ?? null,
    autoSample: results.autoSample ?? null,
    memoryRounds: results.memoryRounds ?? null,
    attribution: results.attribution ?? null,
    hasAa: Boolean(roles && results.aa && (results.aa.latency.length > 0 || results.aa.memory.length > 0)),
    failures: failuresOf(results),
    failureReport: failureReport(results),
    environment: environmentOf(results),
    notMeasured: notMeasuredOf(results),
    loadWarning: loadWarningOf(results),
    interrupted: results.run.interrupted === true,
    startedAt: results.run.startedAt,
    leak: results.leak ?? [],
    storm: results.storm ?? [],
    stormVerdicts: runStormVerdicts(results, guard, minEffect),
    targets: targetsModel(results),
    load: loadModel(results),
  };
  if (!roles) {
    if (!single) return { ...base, latency: [], memory: [], metrics: [] };
    // One variant in both slots: the same figure functions, rendered without ratio columns.
    const self = { baseline: single, candidate: single };
    return {
      ...base,
      latency: latencyModel(results.latency, self),
      memory: memoryModel(results.memory, self),
      metrics: [],
    };
  }
  return {
    ...base,
    latency: latencyModel(results.latency, roles),
    memory: memoryModel(results.memory, roles),
    metrics: metricVerdicts(results, base.guard, minEffect),
  };
}
