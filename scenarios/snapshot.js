// k6 scenario: cold snapshot subscriptions with a delayed ACK per chunk.
//   k6 run -e URL=ws://127.0.0.1:PORT/ws scenarios/snapshot.js
// Env: URL, TOKEN, TOKEN_IN, HEADERS, ACK_DELAY_MS (100), SUBSCRIBE_TAG, SUBSCRIBE_PAYLOAD, COMPLETION, PROBE_TAG,
// PROBE_PAYLOAD, TIMEOUT_MS, ITERATIONS (1, sequential sessions), THRESHOLDS (JSON), SUMMARY (path).
// Needs k6 >= 1.6 (k6/websockets); older k6 cannot load it.
import exec from "k6/execution";
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { recordResult, scenarioSummary } from "./lib/k6-summary.js";
import { runScenarioSession } from "./lib/scenario.js";
import { createSessionMetrics, scenarioOptions } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV);
const iterations = intEnv(__ENV, "ITERATIONS", 1, 1, 100_000);

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });

export const options = scenarioOptions(
  { snapshot: { executor: "per-vu-iterations", vus: 1, iterations, maxDuration: "1h" } },
  iterations,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

export default async function () {
  const result = await runScenarioSession({ WebSocket, now: Date.now, setTimeout, clearTimeout }, config, null);
  recordResult(metrics, result, exec.scenario.iterationInTest);
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return scenarioSummary(data, {
    scenario: "snapshot",
    sessions: iterations,
    summaryPath: __ENV.SUMMARY,
    config,
    cursor: { caseName: "snapshot", explicitAfter: null },
    runId: __ENV.RUN_ID,
  });
}
