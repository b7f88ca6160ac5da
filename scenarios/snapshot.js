// k6 scenario: cold snapshot subscriptions with a delayed ACK per chunk.
//   k6 run -e URL=ws://127.0.0.1:PORT/ws scenarios/snapshot.js
// Env: URL, TOKEN, TOKEN_IN, ACK_DELAY_MS (100), SUBSCRIBE_TAG, SUBSCRIBE_PAYLOAD, COMPLETION, PROBE_TAG,
// PROBE_PAYLOAD, TIMEOUT_MS, ITERATIONS (1, sequential sessions), THRESHOLDS (JSON), SUMMARY (path).
// For k6 < 1.6 import WebSocket from "k6/experimental/websockets" (same API).
import exec from "k6/execution";
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { runScenarioSession } from "./lib/scenario.js";
import { recordSession, SUMMARY_TREND_STATS, sessionThresholds, summaryOutputs } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV);
const iterations = intEnv(__ENV, "ITERATIONS", 1, 1, 100_000);

const metrics = {
  completionMs: new Trend("catchup_completion_ms", true),
  chunks: new Trend("catchup_chunks"),
  probeMs: new Trend("catchup_probe_ms", true),
  errors: new Counter("catchup_errors"),
  firstChunkMs: new Trend("catchup_first_chunk_ms", true),
  values: new Trend("catchup_values"),
  bytes: new Trend("catchup_bytes"),
};

export const options = {
  scenarios: { snapshot: { executor: "per-vu-iterations", vus: 1, iterations, maxDuration: "1h" } },
  thresholds: { ...sessionThresholds(iterations), ...jsonEnv(__ENV, "THRESHOLDS", {}) },
  summaryTrendStats: SUMMARY_TREND_STATS,
};

export default async function () {
  const result = await runScenarioSession({ WebSocket, now: Date.now, setTimeout, clearTimeout }, config, null);
  if (!result.ok) console.error(`session ${exec.scenario.iterationInTest}: ${result.error}`);
  recordSession(metrics, result, exec.scenario.iterationInTest);
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return summaryOutputs(data, {
    scenario: "snapshot",
    sessions: iterations,
    path: __ENV.SUMMARY || "summary.json",
    params: { ...config, case: "snapshot", afterSequence: null },
  });
}
