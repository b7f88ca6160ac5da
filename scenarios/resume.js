// k6 scenario: resume subscriptions after a cursor, with a delayed ACK per chunk.
//   k6 run -e URL=ws://127.0.0.1:PORT/ws -e CASE=many scenarios/resume.js
// CASE: none (after = latest), one (latest - 1), many (the fixture's cursor; default), resolved by
// calling server.getConfig first; or AFTER_SEQUENCE=N explicitly (then CASE must be unset).
// Other env as in snapshot.js: URL, TOKEN, TOKEN_IN, HEADERS, ACK_DELAY_MS, SUBSCRIBE_TAG, SUBSCRIBE_PAYLOAD,
// COMPLETION, PROBE_TAG, PROBE_PAYLOAD, TIMEOUT_MS, ITERATIONS, THRESHOLDS, SUMMARY.
// Needs k6 >= 1.6 (k6/websockets); older k6 cannot load it.
import exec from "k6/execution";
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { cursorFromEnv, intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { runRecorded, scenarioSummary } from "./lib/k6-summary.js";
import { SCENARIO_CASES } from "./lib/protocol.js";
import { resolveAfterSequence, runScenarioSession } from "./lib/scenario.js";
import { createSessionMetrics, scenarioOptions } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV);
const iterations = intEnv(__ENV, "ITERATIONS", 1, 1, 100_000);
// Every case but snapshot resumes after a cursor.
const RESUME_CASES = SCENARIO_CASES.filter((c) => c !== "snapshot");
const { caseName, explicitAfter } = cursorFromEnv(__ENV, RESUME_CASES, "many");
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });

export const options = scenarioOptions(
  { resume: { executor: "per-vu-iterations", vus: 1, iterations, maxDuration: "1h" } },
  iterations,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

/** @type {Promise<number | null> | null} resolved once per VU, outside the timed session */
let after = null;

export default async function () {
  await runRecorded(metrics, exec.scenario.iterationInTest, async () => {
    after ??= resolveAfterSequence(runtime, config, caseName, explicitAfter);
    return runScenarioSession(runtime, config, await after);
  });
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return scenarioSummary(data, {
    scenario: "resume",
    sessions: iterations,
    summaryPath: __ENV.SUMMARY,
    config,
    cursor: { caseName, explicitAfter },
    runId: __ENV.RUN_ID,
  });
}
