// Merging the per-runner summaries of one distributed k6 run (k6-operator's `parallelism`, or any
// split by execution segments) into one report. Each runner's handleSummary sees only its own
// sessions: the merged rows take each session from the runner that ran it; distributions are
// recomputed from those rows. What k6 computed per runner (percentiles, thresholds) cannot be
// combined, and the report says so. Pure: summaries in, a merged model and Markdown out.
import type { PhaseMark } from "../../../scenarios/lib/phase-marks.js";
import { emptySessionResult, SESSION_FIGURES, type SessionResult } from "../../../scenarios/lib/session.js";
import { displayUnit, figureText, type JudgedMetric, METRIC_TABLE, metricOf } from "../../results/metric-names.js";
import { ms } from "../../util/format.js";
import { maxValue, minValue, quantile } from "../../util/stats.js";
import { type Cells, type Column, tableOf } from "../columns.js";
import { mdTable, mdText } from "../markup.js";

export const K6_SUMMARY_SCHEMA = "catchup-bench/k6-summary@1";
/** The row a runner writes for a session it did not run (scenarios/lib/summary.js). */
const DID_NOT_RUN = "session did not run";

type TrendValues = Record<string, number | null | undefined>;

/** One runner's summary file, as scenarios/lib/summary.js writes it. */
export interface RunnerSummary {
  schema: string;
  scenario: string;
  /** RUN_ID of the run that wrote it (null when the run had none). */
  runId?: string | null;
  sessions: number;
  rowsTruncated?: boolean;
  params?: Record<string, unknown>;
  rows: SessionResult[];
  /** Wall-clock phase marks of this runner's sessions (scaleout.js, storm.js), for `--samples`. */
  phases?: Record<string, PhaseMark | null>;
  figures: {
    completionMs: TrendValues | null;
    probeMs: TrendValues | null;
    errors: number;
    [name: string]: unknown;
  };
  error?: string;
}

export interface NamedSummary {
  /** Where it came from (a path), to name the runner in the report. */
  source: string;
  summary: RunnerSummary;
}

export interface MergedRow extends SessionResult {
  session: number;
  /** The source of the runner that ran it, or null when none did. */
  runner: string | null;
}

export interface Distribution {
  count: number;
  min: number;
  median: number;
  p90: number;
  p95: number;
  max: number;
}

export interface RunnerLine {
  source: string;
  ran: number;
  errors: number;
  /** The runner's own median completion, as k6 computed it over its sessions (not combinable). */
  completionMed: number | null;
  completionCount: number;
}

export interface MergedReport {
  scenario: string;
  sessions: number;
  runners: RunnerLine[];
  rows: MergedRow[];
  /** Only the first 200 sessions have rows; beyond, only per-runner aggregates exist. */
  rowsTruncated: boolean;
  totals: { ran: number; ok: number; failed: number; didNotRun: number; errors: number };
  completion: Distribution | null;
  probe: Distribution | null;
  /** Across every session of every runner (also past the rows): combinable aggregates only. */
  allSessions: { count: number; min: number | null; max: number | null; mean: number | null };
  notes: string[];
}

export class MergeInputError extends Error {
  override readonly name = "MergeInputError";
}

/**
 * Why a bench run cannot be merged: its rows (latency, memory, leak, storm) were measured by one
 * harness against servers it sampled; there are no runners' shares to combine.
 */
export function benchRunRefusal(what: string): string {
  return `${what} is a bench run, not a k6 runner summary: --merge combines the summaries of one distributed k6 run; render a bench run (its latency, memory, leak and storm rows) with \`catchup-bench report RUN_DIR\``;
}

/** Checks one parsed file is a runner summary; throws a MergeInputError naming it. */
export function asRunnerSummary(source: string, value: unknown): RunnerSummary {
  const v = value as Partial<RunnerSummary> | null;
  if (typeof v?.schema === "string" && v.schema.startsWith("catchup-bench/results@")) {
    throw new MergeInputError(benchRunRefusal(`${source} (${v.schema})`));
  }
  if (!v || typeof v !== "object" || v.schema !== K6_SUMMARY_SCHEMA) {
    throw new MergeInputError(`${source} is not a k6 scenario summary (schema ${K6_SUMMARY_SCHEMA})`);
  }
  if (typeof v.error === "string") throw new MergeInputError(`${source}: the runner's summary failed: ${v.error}`);
  if (typeof v.scenario !== "string" || !Number.isSafeInteger(v.sessions) || !Array.isArray(v.rows) || !v.figures) {
    throw new MergeInputError(`${source} lacks scenario, sessions, rows or figures`);
  }
  return v as RunnerSummary;
}

function distribution(values: number[]): Distribution | null {
  if (values.length === 0) return null;
  return {
    count: values.length,
    min: minValue(values),
    median: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p95: quantile(values, 0.95),
    max: maxValue(values),
  };
}

function ran(row: SessionResult | undefined): row is SessionResult {
  return row !== undefined && row.error !== DID_NOT_RUN;
}

/**
 * Merges the summaries of one run. Throws a MergeInputError when they cannot be one run: another
 * scenario or session count, or a session that ran on two runners (indices must be unique).
 */
export function mergeSummaries(inputs: readonly NamedSummary[]): MergedReport {
  if (inputs.length === 0) throw new MergeInputError("no summaries to merge");
  const first = (inputs[0] as NamedSummary).summary;
  for (const { source, summary } of inputs) {
    // A results volume keeps earlier runs' files under other pod names: their rows would count twice.
    if ((summary.runId ?? null) !== (first.runId ?? null)) {
      throw new MergeInputError(
        `${source} is from run ${JSON.stringify(summary.runId ?? null)}, but ${(inputs[0] as NamedSummary).source} is from run ${JSON.stringify(first.runId ?? null)}: a stale summary of another run; merge one run's summaries (one RUN_ID)`,
      );
    }
    if (summary.scenario !== first.scenario || summary.sessions !== first.sessions) {
      throw new MergeInputError(
        `${source} is ${summary.scenario} with ${summary.sessions} sessions, but ${(inputs[0] as NamedSummary).source} is ${first.scenario} with ${first.sessions}: not one run`,
      );
    }
    // The runners of one run share its environment: another ramp, resume ratio or cursor is another run.
    const differs = differingParam(first.params, summary.params);
    if (differs !== null) {
      throw new MergeInputError(
        `${source} has ${differs}=${JSON.stringify(summary.params?.[differs])}, but ${(inputs[0] as NamedSummary).source} has ${JSON.stringify(first.params?.[differs])}: not one run`,
      );
    }
  }
  const rowCount = maxValue(inputs.map((i) => i.summary.rows.length));
  const rows: MergedRow[] = [];
  for (let session = 0; session < rowCount; session++) {
    const owners = inputs.filter((i) => ran(i.summary.rows[session]));
    if (owners.length > 1) {
      throw new MergeInputError(
        `session ${session} ran on ${owners.map((o) => o.source).join(" and ")}: session indices are not unique across these runners (use scaleout.js, which numbers sessions by VU id in the test)`,
      );
    }
    const owner = owners[0];
    const row = owner?.summary.rows[session];
    rows.push(
      owner && row
        ? { ...row, session, runner: owner.source }
        : { ...emptySessionResult(DID_NOT_RUN), session, runner: null },
    );
  }
  const ranRows = rows.filter((r) => r.runner !== null);
  const runners: RunnerLine[] = inputs.map(({ source, summary }) => ({
    source,
    ran: summary.rows.filter(ran).length,
    errors: summary.figures.errors,
    completionMed: num(summary.figures.completionMs?.med),
    completionCount: num(summary.figures.completionMs?.count) ?? 0,
  }));
  const rowsTruncated = inputs.some((i) => i.summary.rowsTruncated === true);
  const notes = [
    "Thresholds were evaluated by each runner over its own sessions only; no threshold covered the whole run, and a runner's exit code speaks for that runner alone.",
    "Distributions below are recomputed from the per-session rows, not combined from the runners' percentiles (percentiles of parts do not combine into the percentile of the whole).",
  ];
  if (rowsTruncated) {
    notes.push(
      `Only the first ${rowCount} sessions have rows; for the rest only per-runner aggregates exist, so the run's median and percentiles cannot be given. Count, min, max and mean are combined exactly.`,
    );
  }
  const missing = rows.filter((r) => r.runner === null).length;
  if (missing > 0)
    notes.push(`${missing} sessions appear in no runner's summary (a runner missing from the merge, or it failed).`);
  return {
    scenario: first.scenario,
    sessions: first.sessions,
    runners,
    rows,
    rowsTruncated,
    totals: {
      ran: ranRows.length,
      ok: ranRows.filter((r) => r.ok).length,
      failed: ranRows.filter((r) => !r.ok).length,
      didNotRun: missing,
      errors: inputs.reduce((a, i) => a + i.summary.figures.errors, 0),
    },
    completion: distribution(ranRows.flatMap((r) => (r.completionMs === null ? [] : [r.completionMs]))),
    probe: distribution(ranRows.flatMap((r) => (r.probeMs === null ? [] : [r.probeMs]))),
    allSessions: combineAggregates(inputs.map((i) => i.summary.figures.completionMs)),
    notes,
  };
}

/** The first parameter two runners' summaries disagree on (both must carry params), or null. */
function differingParam(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): string | null {
  if (!a || !b) return null;
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return key;
  }
  return null;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** Count, min, max and count-weighted mean of per-runner trend figures: the parts that combine exactly. */
function combineAggregates(trends: Array<TrendValues | null>): MergedReport["allSessions"] {
  let count = 0;
  let sum = 0;
  let min: number | null = null;
  let max: number | null = null;
  for (const t of trends) {
    const n = num(t?.count) ?? 0;
    if (n === 0 || !t) continue;
    count += n;
    sum += (num(t.avg) ?? 0) * n;
    const lo = num(t.min);
    const hi = num(t.max);
    if (lo !== null) min = min === null ? lo : Math.min(min, lo);
    if (hi !== null) max = max === null ? hi : Math.max(max, hi);
  }
  return { count, min, max, mean: count > 0 ? sum / count : null };
}

function distributionLine(label: string, d: Distribution | null): string {
  if (!d) return `| ${label} | 0 | n/a | n/a | n/a | n/a | n/a |`;
  return `| ${label} | ${d.count} | ${ms(d.min)} | ${ms(d.median)} | ${ms(d.p90)} | ${ms(d.p95)} | ${ms(d.max)} |`;
}

/** The merged report as Markdown; `memory` (the agents' section) goes before the per-session rows. */
export function renderMergedMarkdown(m: MergedReport, memory = ""): string {
  const out: string[] = [];
  out.push(`# k6 distributed run: ${mdText(m.scenario)}, ${m.runners.length} runners`, "");
  for (const n of m.notes) out.push(`> ${n}`, "");
  out.push("## Totals", "");
  out.push(
    `${m.sessions} sessions; ${m.totals.ran} ran (${m.totals.ok} ok, ${m.totals.failed} failed); ${m.totals.didNotRun} in no summary; ${m.totals.errors} errors counted by the runners.`,
    "",
  );
  out.push("## Distributions over the per-session rows (ms)", "");
  out.push("| metric | sessions | min | median | p90 | p95 | max |", "|---|---:|---:|---:|---:|---:|---:|");
  out.push(distributionLine("completion", m.completion), distributionLine("probe", m.probe), "");
  const a = m.allSessions;
  out.push(
    `Completion across all ${a.count} sessions of all runners (exact combination): min ${ms(a.min)}, mean ${ms(a.mean)}, max ${ms(a.max)} ms.`,
    "",
  );
  out.push("## Runners", "");
  out.push("| runner | sessions ran | errors | its own completion median (ms) |", "|---|---:|---:|---:|");
  for (const r of m.runners) out.push(`| ${mdText(r.source)} | ${r.ran} | ${r.errors} | ${ms(r.completionMed)} |`);
  out.push("");
  if (memory) out.push(memory);
  const sessions = sessionCells(m);
  out.push("## Sessions", "", ...mdTable(sessions.header, sessions.rows));
  out.push("");
  return out.join("\n");
}

/** A session figure's column: a figure the metric table judges as it shows it ("acknowledged ms"), a count as is. */
function figureColumn(key: (typeof SESSION_FIGURES)[number]["key"]): Column<MergedRow> {
  const value = (r: MergedRow) => r[key] ?? null;
  if (!(key in METRIC_TABLE)) return { header: key, cell: (r) => String(value(r) ?? "n/a") };
  const metric = key as JudgedMetric;
  return {
    header: `${metricOf(metric).header} ${displayUnit(metric)}`,
    cell: (r) => figureText(metric, value(r)),
    // A figure older summaries lack is shown only where a session records it.
    ...(metricOf(metric).recent ? { recorded: (r: MergedRow) => value(r) !== null } : {}),
  };
}

/** The sessions table, one row per session: its runner, ok, every session figure (SESSION_FIGURES), its error. */
export function sessionCells(m: MergedReport): Cells {
  const columns: Column<MergedRow>[] = [
    { header: "session", cell: (r) => String(r.session) },
    { header: "runner", cell: (r) => r.runner ?? "none" },
    { header: "ok", cell: (r) => (r.ok ? "yes" : "no") },
    ...SESSION_FIGURES.map((f) => figureColumn(f.key)),
    { header: "error", cell: (r) => r.error ?? "" },
  ];
  return tableOf(columns, m.rows);
}
