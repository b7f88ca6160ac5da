// The shared ends of the k6 scripts: a session's result recorded under its index (a session that
// throws is recorded as an empty failed row, never left out), and handleSummary's outputs with the
// scenario's parameters and the cursor it was given.
import { emptySessionResult } from "./session.js";
import { recordSession, summaryOutputs } from "./summary.js";

/**
 * @typedef {import("./summary.js").SessionMetrics} SessionMetrics
 * @typedef {import("./session.js").SessionResult} SessionResult
 */

/**
 * Records one session's result, logging it when it failed.
 * @param {SessionMetrics} metrics
 * @param {SessionResult} result
 * @param {number} session
 */
export function recordResult(metrics, result, session) {
  if (!result.ok) console.error(`session ${session}: ${result.error}`);
  recordSession(metrics, result, session);
}

/**
 * Runs one session and records it; one that throws is recorded as a failed session with the error.
 * @param {SessionMetrics} metrics
 * @param {number} session
 * @param {() => Promise<SessionResult>} run
 */
export async function runRecorded(metrics, session, run) {
  let result;
  try {
    result = await run();
  } catch (e) {
    result = emptySessionResult(String(/** @type {Error} */ (e).message ?? e));
  }
  recordResult(metrics, result, session);
}

/**
 * handleSummary of a scenario whose sessions are its CLIENTS (memory, scaleout): the summary with the
 * run's SUMMARY path and RUN_ID from env.
 * @param {import("./summary.js").SummaryData} data
 * @param {Record<string, string | undefined>} env
 * @param {string} scenario
 * @param {{ clients: number, config: object, caseName: string, explicitAfter: number | null }} run
 * @returns {Record<string, string>}
 */
export function clientsSummary(data, env, scenario, { clients, config, caseName, explicitAfter }) {
  const cursor = { caseName, explicitAfter };
  const summaryPath = env.SUMMARY;
  return scenarioSummary(data, {
    scenario,
    sessions: clients,
    summaryPath,
    config,
    extra: { clients },
    cursor,
    runId: env.RUN_ID,
  });
}

/**
 * handleSummary's outputs: the SUMMARY file (default summary.json) and a stdout line. `params` are the
 * session config, then `extra`, then the case (null when an explicit AFTER_SEQUENCE replaced it).
 * `runId` (RUN_ID) names the run, so a merge can refuse a stale runner's summary from another run.
 * @param {import("./summary.js").SummaryData} data
 * @param {{ scenario: string, sessions: number, summaryPath: string | undefined, config: object,
 *   extra?: Record<string, unknown>, cursor: { caseName: string, explicitAfter: number | null },
 *   runId?: string | undefined }} meta
 * @returns {Record<string, string>}
 */
export function scenarioSummary(data, { scenario, sessions, summaryPath, config, extra = {}, cursor, runId }) {
  return summaryOutputs(data, {
    scenario,
    sessions,
    runId: runId || null,
    path: summaryPath || "summary.json",
    params: {
      ...config,
      ...extra,
      case: cursor.explicitAfter === null ? cursor.caseName : null,
      afterSequence: cursor.explicitAfter,
    },
  });
}
