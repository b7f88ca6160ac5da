// k6 scenario: CLIENTS concurrent subscriptions, one per VU (vus = CLIENTS), so that k6-operator's
// `parallelism` (or any split by execution segments) divides them across runners. Each session's
// index is its VU's id in the whole test (exec.vu.idInTest - 1): unique across runners, so the
// runners' summaries merge into one set of rows (`catchup-bench report --merge`).
//   k6 run -e URL=ws://127.0.0.1:PORT/ws -e CLIENTS=400 scenarios/scaleout.js
// CASE: many (default), none, one, or snapshot, read through server.getConfig by every VU before its
// session (one extra short connection per VU); AFTER_SEQUENCE skips that. HOLD_MS as in memory.js; other
// env as in snapshot.js. Each runner's summary and thresholds cover only its own sessions.
// Needs k6 >= 1.6 (k6/websockets); older k6 cannot load it.
import exec from "k6/execution";
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { CASES, cursorFromEnv, intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { resolveAfterSequence, runScenarioSession } from "./lib/scenario.js";
import { emptySessionResult } from "./lib/session.js";
import { createSessionMetrics, recordSession, scenarioOptions, summaryOutputs } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV, { holdMs: 100 });
const clients = intEnv(__ENV, "CLIENTS", 1, 1, 100000);
const { caseName, explicitAfter } = cursorFromEnv(__ENV, CASES, "many");
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });

export const options = scenarioOptions(
  // One session per VU: splitting the VUs splits the sessions.
  { scaleout: { executor: "per-vu-iterations", vus: clients, iterations: 1, maxDuration: "1h" } },
  clients,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

export default async function () {
  const session = exec.vu.idInTest - 1;
  let result;
  try {
    const after = await resolveAfterSequence(runtime, config, caseName, explicitAfter);
    result = await runScenarioSession(runtime, config, after);
  } catch (e) {
    result = emptySessionResult(String(/** @type {Error} */ (e).message ?? e));
  }
  if (!result.ok) console.error(`session ${session}: ${result.error}`);
  recordSession(metrics, result, session);
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return summaryOutputs(data, {
    scenario: "scaleout",
    sessions: clients,
    path: __ENV.SUMMARY || "summary.json",
    params: { ...config, clients, case: explicitAfter === null ? caseName : null, afterSequence: explicitAfter },
  });
}
