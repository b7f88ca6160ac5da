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
import { clientsSummary, runRecorded } from "./lib/k6-summary.js";
import { createPhaseMetrics, phaseRecorder } from "./lib/phase-marks.js";
import { DEFAULT_HOLD_MS } from "./lib/protocol.js";
import { resolveAfterSequence, runScenarioSession } from "./lib/scenario.js";
import { createSessionMetrics, scenarioOptions } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV, { holdMs: DEFAULT_HOLD_MS });
const clients = intEnv(__ENV, "CLIENTS", 1, 1, 100000);
const { caseName, explicitAfter } = cursorFromEnv(__ENV, CASES, "many");
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });
// Wall-clock phase marks, to line this runner up with `catchup-bench sample` on the server's host.
const phases = createPhaseMetrics({ Trend });

export const options = scenarioOptions(
  // One session per VU: splitting the VUs splits the sessions.
  { scaleout: { executor: "per-vu-iterations", vus: clients, iterations: 1, maxDuration: "1h" } },
  clients,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

export default async function () {
  await runRecorded(metrics, exec.vu.idInTest - 1, async () => {
    const after = await resolveAfterSequence(runtime, config, caseName, explicitAfter);
    return runScenarioSession(runtime, config, after, null, phaseRecorder(phases));
  });
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return clientsSummary(data, __ENV, "scaleout", { clients, config, caseName, explicitAfter });
}
