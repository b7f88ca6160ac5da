// Per-session rows through k6's summary. k6 runs every VU in its own runtime and handleSummary in
// another, so rows cannot be shared in memory; metrics are the only channel. Each session's samples
// carry a `session` tag, and one always-passing threshold per session and metric makes k6 report
// that session's submetric in the summary data, from which the rows are rebuilt exactly. Pure.
import { phasesFromSummary } from "./phase-marks.js";
import { SESSION_FIGURES } from "./session.js";

/**
 * A session figure's k6 metric: "catchup_" and its key in snake case (completionMs ->
 * catchup_completion_ms).
 * @param {string} key
 */
const metricName = (key) => `catchup_${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;

/** Metric names: one per figure of a session row (SESSION_FIGURES), plus the error count. */
export const METRICS = /** @type {Record<SessionFigure | "errors", string>} */ (
  Object.fromEntries([...SESSION_FIGURES.map((f) => [f.key, metricName(f.key)]), ["errors", metricName("errors")]])
);

/** Past this many sessions the summary carries aggregate figures only (thresholds grow with N). */
export const MAX_SESSION_ROWS = 200;
export const SUMMARY_TREND_STATS = ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"];
export const SUMMARY_SCHEMA = "catchup-bench/k6-summary@1";

/**
 * @typedef {{ add(value: number, tags?: Record<string, string>): void }} MetricLike
 * @typedef {import("./session.js").SessionFigure} SessionFigure
 * @typedef {Record<SessionFigure | "errors", MetricLike>} SessionMetrics
 * @typedef {import("./session.js").SessionResult} SessionResult
 * @typedef {{ type?: string, values?: Record<string, number | null | undefined> }} SummaryMetric
 * @typedef {{ metrics?: Record<string, SummaryMetric | undefined> }} SummaryData
 */

/**
 * Always-passing thresholds that make k6 report each session's submetrics.
 * @param {number} sessions
 * @returns {Record<string, string[]>}
 */
export function sessionThresholds(sessions) {
  /** @type {Record<string, string[]>} */
  const out = {};
  for (let i = 0; i < Math.min(sessions, MAX_SESSION_ROWS); i++) {
    for (const f of SESSION_FIGURES) out[`${METRICS[f.key]}{session:${i}}`] = ["max>=0"];
    out[`${METRICS.errors}{session:${i}}`] = ["count>=0"];
  }
  return out;
}

/**
 * Records one session's figures. Only the sessions that get rows (index < MAX_SESSION_ROWS) carry a
 * `session` tag: each tag value is a time series per metric, and k6 warns past 100k series. Errors
 * add 0 on success so every tagged session's error submetric exists.
 * @param {SessionMetrics} metrics
 * @param {SessionResult} result
 * @param {number} session
 */
export function recordSession(metrics, result, session) {
  /** @type {Record<string, string>} */
  const tags = session < MAX_SESSION_ROWS ? { session: String(session) } : {};
  for (const f of SESSION_FIGURES) {
    const v = result[f.key];
    if (typeof v === "number") metrics[f.key].add(v, tags);
  }
  metrics.errors.add(result.ok ? 0 : 1, tags);
}

/**
 * The scenario's metrics, named as in METRICS. k6 allows creating metrics only in the init context,
 * so scripts call this at module top level, passing k6's Trend and Counter (kept out of lib so it
 * loads without k6).
 * @param {{ Trend: new (name: string, isTime?: boolean) => MetricLike, Counter: new (name: string) => MetricLike }} k6
 * @returns {SessionMetrics}
 */
export function createSessionMetrics({ Trend, Counter }) {
  /** @type {Record<string, MetricLike>} */
  const metrics = {};
  for (const f of SESSION_FIGURES)
    metrics[f.key] = f.time ? new Trend(METRICS[f.key], true) : new Trend(METRICS[f.key]);
  metrics.errors = new Counter(METRICS.errors);
  return /** @type {SessionMetrics} */ (metrics);
}

/**
 * k6 `options` for a scenario of `sessions` sessions: the per-session thresholds (plus any from
 * THRESHOLDS, already parsed) and the trend stats the summary reads.
 * @param {Record<string, unknown>} scenarios
 * @param {number} sessions
 * @param {Record<string, string[]>} extraThresholds
 */
export function scenarioOptions(scenarios, sessions, extraThresholds) {
  return {
    scenarios,
    thresholds: { ...sessionThresholds(sessions), ...extraThresholds },
    summaryTrendStats: SUMMARY_TREND_STATS,
  };
}

export const NEW_SUMMARY_HINT =
  "K6_NEW_MACHINE_READABLE_SUMMARY changes the data handleSummary receives; run k6 with it unset or false";

/**
 * Throws unless `data` has the shape of k6's classic summary data: `metrics` maps names to objects
 * with `type` and `values`, and the scenario's own metrics are present. Another shape (such as the
 * one K6_NEW_MACHINE_READABLE_SUMMARY selects) must not turn every row into "did not run".
 * @param {unknown} data
 * @returns {asserts data is SummaryData}
 */
export function assertClassicSummary(data) {
  const metrics = /** @type {{ metrics?: unknown } | null | undefined} */ (data)?.metrics;
  const errors =
    metrics && typeof metrics === "object" ? /** @type {Record<string, any>} */ (metrics)[METRICS.errors] : undefined;
  const ok =
    errors &&
    typeof errors === "object" &&
    typeof errors.type === "string" &&
    errors.values &&
    typeof errors.values === "object";
  if (!ok) {
    const keys = data && typeof data === "object" ? Object.keys(data).join(", ") : typeof data;
    throw new Error(
      `unrecognised k6 summary data (top-level keys: ${keys}; no metrics.${METRICS.errors}.values). ${NEW_SUMMARY_HINT}`,
    );
  }
}

/**
 * Rebuilds per-session rows from k6 summary data. A failed session's reason is not a number, so it
 * travels in the k6 log (console.error), not here.
 * @param {SummaryData} data
 * @param {number} sessions
 * @returns {SessionResult[]}
 */
export function rowsFromSummary(data, sessions) {
  /** @type {SessionResult[]} */
  const rows = [];
  for (let i = 0; i < Math.min(sessions, MAX_SESSION_ROWS); i++) {
    /** @param {string} name */
    const values = (name) => data.metrics?.[`${name}{session:${i}}`]?.values ?? {};
    /** @param {SessionFigure} field @returns {number | null} */
    const one = (field) => {
      const v = values(METRICS[field]);
      return typeof v.count === "number" && v.count > 0 && typeof v.max === "number" ? v.max : null;
    };
    const errorCount = values(METRICS.errors).count;
    const completionMs = one("completionMs");
    // Every session that ran adds a chunks sample (0 when it failed early) or an error. A runner of a
    // split run also reports, with no samples, the sessions other runners ran: those did not run here.
    const chunkSamples = values(METRICS.chunks).count;
    const ran =
      (typeof chunkSamples === "number" && chunkSamples > 0) || (typeof errorCount === "number" && errorCount > 0);
    const ok = ran && errorCount === 0 && completionMs !== null;
    /** @type {Record<string, unknown>} */
    const row = { ok };
    for (const f of SESSION_FIGURES) row[f.key] = one(f.key) ?? f.empty;
    row.error = ok ? null : ran ? "session failed (the reason is in the k6 log)" : "session did not run";
    rows.push(/** @type {SessionResult} */ (/** @type {unknown} */ (row)));
  }
  return rows;
}

/**
 * Aggregate figures of all sessions (trend stats as k6 computed them; errors as a count).
 * @param {SummaryData} data
 */
export function figuresFromSummary(data) {
  /** @param {string} name */
  const stats = (name) => data.metrics?.[name]?.values ?? null;
  const figures = /** @type {Record<SessionFigure, SummaryMetric["values"] | null>} */ (
    Object.fromEntries(SESSION_FIGURES.map((f) => [f.key, stats(METRICS[f.key])]))
  );
  return { ...figures, errors: stats(METRICS.errors)?.count ?? 0 };
}

/**
 * The handleSummary result: the SUMMARY file (JSON) and a short line for stdout.
 * @param {SummaryData} data
 * @param {{ scenario: string, sessions: number, path: string, params: Record<string, unknown>, runId?: string | null }} meta
 * @returns {Record<string, string>}
 */
export function summaryOutputs(data, meta) {
  try {
    assertClassicSummary(data);
  } catch (e) {
    // Written, not thrown: a thrown error only reaches the k6 log; whoever reads the file must see it.
    const error = /** @type {Error} */ (e).message;
    const body = {
      schema: SUMMARY_SCHEMA,
      scenario: meta.scenario,
      runId: meta.runId ?? null,
      sessions: meta.sessions,
      error,
    };
    return { [meta.path]: JSON.stringify(body, null, 2), stdout: `catchup ${meta.scenario}: ${error}\n` };
  }
  const rows = rowsFromSummary(data, meta.sessions);
  const figures = figuresFromSummary(data);
  const body = {
    schema: SUMMARY_SCHEMA,
    scenario: meta.scenario,
    runId: meta.runId ?? null,
    params: { ...meta.params, ...("token" in meta.params ? { token: meta.params.token ? "(redacted)" : null } : {}) },
    sessions: meta.sessions,
    rowsTruncated: meta.sessions > MAX_SESSION_ROWS,
    rows,
    figures,
    // Wall-clock marks (epoch ms) of this runner's sessions, for `report --merge --samples`.
    phases: phasesFromSummary(data),
  };
  const med = figures.completionMs?.med;
  const line =
    `catchup ${meta.scenario}: ${meta.sessions} sessions, ${figures.errors} errors, completion median ` +
    `${typeof med === "number" ? med.toFixed(1) : "-"} ms, chunks ${rows.map((r) => r.chunks).join("/")}; ` +
    `summary in ${meta.path}\n`;
  return { [meta.path]: JSON.stringify(body, null, 2), stdout: line };
}
