// results.json -> the report model: every figure the Markdown and HTML renderers show, computed once.
// Pure and deterministic (bootstrap seeds derive from metric names), so a report re-renders byte for byte.
import type { LatencyRow, MemoryRow, Results, RunFixture, RunInfo } from "../results.js";
import { type Interval, median, type RatioSummary, seedFromString, summariseRatios } from "../stats.js";
import { size } from "./format.js";
import {
  aaRolesOf,
  caseRatios,
  cellKey,
  LATENCY_METRICS,
  METRICS,
  type Metric,
  metricRatios,
  type Roles,
  rolesOf,
} from "./metrics.js";

/** Bootstrap resamples for every interval in a report (seeded per metric). */
export const RESAMPLES = 4000;

export interface Pair<T> {
  baseline: T;
  candidate: T;
}

export interface LatencyCaseModel {
  case: string;
  label: string;
  trials: Pair<number>;
  completionMedianMs: Pair<number | null>;
  chunks: Pair<number[]>;
  /** Per-case paired completion ratios: median and interval. */
  ratio: RatioSummary | null;
  /** Every trial's completionMs (null for failed trials), by trial number, for the charts. */
  points: Pair<{ trial: number; ms: number | null }[]>;
  probe: Pair<{ maxMs: number | null; medianMs: number | null }>;
}

export interface MemoryCellModel {
  key: string;
  scriptBytes: number;
  clients: number;
  mode: string;
  trials: Pair<number>;
  peakHeapBytes: Pair<number | null>;
  peakRssBytes: Pair<number | null>;
  hwmRssBytes: Pair<number | null>;
  postGcHeapBytes: Pair<number | null>;
  retainedHeapBytes: Pair<number | null>;
  bytesThroughCompletion: Pair<number | null>;
  interval: Pair<{ median: number; p99: number; max: number } | null>;
  probe: Pair<{ maxMs: number | null; medianMs: number | null }>;
  /** The samples file of each variant's first ok trial (for the timeline charts). */
  samplesFile: Pair<string | null>;
}

export type Verdict = "lower" | "higher" | "no difference detected" | "no pairs";

export interface PairedMetricModel {
  metric: Metric;
  summary: RatioSummary | null;
  /** The A/A noise band [1/m, m] for this metric, when an A/A run exists with pairs. */
  aaBand: Interval | null;
  aa: RatioSummary | null;
  verdict: Verdict;
  /** Why the verdict (e.g. "interval spans 1.0", "inside the A/A band"). */
  reason: string;
}

export interface FailedRow {
  what: string;
  error: string;
}

export interface ReportModel {
  roles: Roles | null;
  otherVariants: string[];
  variantDescriptions: string[];
  latency: LatencyCaseModel[];
  memory: MemoryCellModel[];
  paired: PairedMetricModel[];
  hasAa: boolean;
  failures: FailedRow[];
  environment: string;
  notMeasured: string;
  /** A busy machine at the start of the run (1-minute load average above the core count), or null. */
  loadWarning: string | null;
  interrupted: boolean;
  startedAt: string;
}

const CASE_ORDER = ["snapshot", "resume-none", "resume-one", "resume-many"];
const CASE_LABELS: Record<string, string> = {
  snapshot: "snapshot",
  "resume-none": "resume, no new events",
  "resume-one": "resume, one event",
  "resume-many": "resume, all events after the cursor",
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
  return xs.length > 0 ? Math.max(...xs) : null;
}

function pairOf<T>(roles: Roles, f: (variant: string) => T): Pair<T> {
  return { baseline: f(roles.baseline), candidate: f(roles.candidate) };
}

function byTrial<R extends { trial: number }>(rows: readonly R[]): R[] {
  return [...rows].sort((a, b) => a.trial - b.trial);
}

function latencyModel(rows: readonly LatencyRow[], roles: Roles): LatencyCaseModel[] {
  const cases = [...new Set(rows.map((r) => r.case as string))].sort((a, b) => {
    const ia = CASE_ORDER.indexOf(a);
    const ib = CASE_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  return cases.map((kase) => {
    const of = (v: string) => byTrial(rows.filter((r) => r.case === kase && r.variant === v));
    const ratios = caseRatios("completionMs", rows, roles, kase);
    return {
      case: kase,
      label: CASE_LABELS[kase] ?? kase,
      trials: pairOf(roles, (v) => of(v).filter((r) => r.ok).length),
      completionMedianMs: pairOf(roles, (v) => medianOrNull(okValues(of(v), (r) => r.completionMs))),
      chunks: pairOf(roles, (v) => [...new Set(okValues(of(v), (r) => r.chunks))].sort((a, b) => a - b)),
      ratio: summariseRatios(ratios, { resamples: RESAMPLES, seed: seedFromString(`case:${kase}`) }),
      points: pairOf(roles, (v) => of(v).map((r) => ({ trial: r.trial, ms: r.ok ? r.completionMs : null }))),
      probe: pairOf(roles, (v) => {
        const p = okValues(of(v), (r) => r.probeMs);
        return { maxMs: maxOrNull(p), medianMs: medianOrNull(p) };
      }),
    };
  });
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
      peakHeapBytes: med((r) => r.peakHeapBytes),
      peakRssBytes: med((r) => r.peakRssBytes),
      hwmRssBytes: med((r) => r.hwmRssBytes),
      postGcHeapBytes: med((r) => r.postGcHeapBytes),
      retainedHeapBytes: med((r) => r.retainedHeapBytes),
      bytesThroughCompletion: med((r) => r.bytesThroughCompletion),
      interval: pairOf(roles, (v) => {
        const iv = of(v).filter((r) => r.ok && r.sampleIntervalMs);
        if (iv.length === 0) return null;
        return {
          median: median(iv.map((r) => r.sampleIntervalMs?.median ?? 0)),
          p99: Math.max(...iv.map((r) => r.sampleIntervalMs?.p99 ?? 0)),
          max: Math.max(...iv.map((r) => r.sampleIntervalMs?.max ?? 0)),
        };
      }),
      probe: pairOf(roles, (v) => ({
        maxMs: maxOrNull(okValues(of(v), (r) => r.probeMaxMs)),
        medianMs: medianOrNull(okValues(of(v), (r) => r.probeMedianMs)),
      })),
      samplesFile: pairOf(roles, (v) => of(v).find((r) => r.ok && r.samplesFile)?.samplesFile ?? null),
    };
  });
}

/** The A/A noise band for a metric: [1/m, m] with m the farther bound of the A/A median's interval. */
function aaBandOf(aa: RatioSummary | null): Interval | null {
  if (!aa) return null;
  const m = Math.max(aa.ci.high, 1 / aa.ci.low, aa.median, 1 / aa.median);
  return { low: 1 / m, high: m };
}

/** Below this many pairs no verdict is given; below RELIABLE_PAIRS the interval undercovers (test/stats). */
export const MIN_PAIRS = 3;
export const RELIABLE_PAIRS = 8;

function verdictOf(summary: RatioSummary | null, band: Interval | null): { verdict: Verdict; reason: string } {
  if (!summary) return { verdict: "no pairs", reason: "no trial with both variants ok" };
  if (summary.n < MIN_PAIRS) {
    return {
      verdict: "no difference detected",
      reason: `${summary.n} pair${summary.n === 1 ? "" : "s"}: too few to judge`,
    };
  }
  if (summary.ci.low <= 1 && summary.ci.high >= 1)
    return { verdict: "no difference detected", reason: "interval spans 1.0" };
  if (band && summary.median >= band.low && summary.median <= band.high) {
    return { verdict: "no difference detected", reason: "inside the A/A band" };
  }
  const few = summary.n < RELIABLE_PAIRS ? `; only ${summary.n} pairs: indicative` : "";
  return summary.median < 1
    ? { verdict: "lower", reason: `interval below 1.0${few}` }
    : { verdict: "higher", reason: `interval above 1.0${few}` };
}

function pairedModel(results: Results, roles: Roles): PairedMetricModel[] {
  const aaRows = results.aa;
  const aaRoles = aaRows ? aaRolesOf([...aaRows.latency, ...aaRows.memory]) : null;
  const present = new Set<Metric>();
  for (const m of METRICS) {
    const rows = (LATENCY_METRICS as readonly string[]).includes(m) ? results.latency : results.memory;
    if (rows.length > 0) present.add(m);
  }
  return METRICS.filter((m) => present.has(m)).map((metric) => {
    const seed = seedFromString(metric);
    const summary = summariseRatios(metricRatios(metric, results, roles), { resamples: RESAMPLES, seed });
    const aa =
      aaRows && aaRoles
        ? summariseRatios(metricRatios(metric, aaRows, aaRoles), { resamples: RESAMPLES, seed: seed ^ 0xaa })
        : null;
    const aaBand = aaBandOf(aa);
    return { metric, summary, aa, aaBand, ...verdictOf(summary, aaBand) };
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
        const cell = `${r.scriptBytes} B x ${r.clients} ${r.mode}`;
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
  const git = r.gitCommit ? `; commit ${r.gitCommit.slice(0, 12)}` : "";
  return `Node ${r.node}; CPU ${r.cpuModel}; ${r.cores} cores; load average ${load} (1, 5, 15 min, at start)${git}; run started ${r.startedAt}.`;
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

function notMeasuredOf(results: Results): string {
  const c = results.run.config ?? {};
  const trials = num(c, "trials");
  const memoryTrials = num(c, "memoryTrials");
  const projects = num(c, "projects");
  const events = num(c, "events");
  // The fixtures recorded in the run come first; older results only have the configured defaults.
  const recorded = results.run.fixtures ? fixturesText(results.run.fixtures) : null;
  const parts = [
    "a physical network (all traffic is loopback, 127.0.0.1)",
    trials === 1 && results.latency.length > 0
      ? "more than one run per latency case (1 trial each: no spread within a case)"
      : null,
    memoryTrials === 1 && results.memory.length > 0 ? "spread within a memory cell (one run per memory cell)" : null,
    recorded
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

/** Builds the report model from a run's results. Requires a baseline and a candidate variant. */
export function buildModel(results: Results): ReportModel {
  const roles = rolesOf(results);
  const names = results.variants.map((v) => v.name);
  const base = {
    roles,
    otherVariants: roles ? names.filter((n) => n !== roles.baseline && n !== roles.candidate) : names,
    variantDescriptions: results.variants.map((v) =>
      relativeToRoot(`${v.name} (${v.role}, ${v.kind}: ${v.command})`, results.run.projectRoot),
    ),
    hasAa: Boolean(results.aa && (results.aa.latency.length > 0 || results.aa.memory.length > 0)),
    failures: failuresOf(results),
    environment: environmentOf(results),
    notMeasured: notMeasuredOf(results),
    loadWarning: loadWarningOf(results),
    interrupted: results.run.interrupted === true,
    startedAt: results.run.startedAt,
  };
  if (!roles) return { ...base, latency: [], memory: [], paired: [] };
  return {
    ...base,
    latency: latencyModel(results.latency, roles),
    memory: memoryModel(results.memory, roles),
    paired: pairedModel(results, roles),
  };
}
