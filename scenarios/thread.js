// k6 scenario: thread subscriptions (orchestration.subscribeThread) with a delayed ACK per chunk.
//   k6 run -e URL=ws://127.0.0.1:PORT/ws -e CASE=resume scenarios/thread.js
// CASE: resume (after the thread's cursor; default) or snapshot. The thread and its cursor are the
// fixture's measured thread, read from server.getConfig; or THREAD_ID=ID with AFTER_SEQUENCE=N (or
// CASE=snapshot) explicitly. SUBSCRIBE_PAYLOAD defaults to the thread template: {thread} stands for
// the thread id, {after} for the cursor. Other env as in snapshot.js: URL, TOKEN, TOKEN_IN, HEADERS,
// ACK_DELAY_MS, SUBSCRIBE_TAG, COMPLETION, PROBE_TAG, PROBE_PAYLOAD, TIMEOUT_MS, ITERATIONS,
// THRESHOLDS, SUMMARY. Needs k6 >= 1.6 (k6/websockets); older k6 cannot load it.
import exec from "k6/execution";
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { cursorFromEnv, intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { runRecorded, scenarioSummary } from "./lib/k6-summary.js";
import { THREAD_SCENARIO_CASES, THREAD_SUBSCRIBE_TAG, THREAD_SUBSCRIBE_TEMPLATE } from "./lib/protocol.js";
import { resolveThread, runScenarioSession } from "./lib/scenario.js";
import { createSessionMetrics, scenarioOptions } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV, {
  subscribeTag: THREAD_SUBSCRIBE_TAG,
  template: THREAD_SUBSCRIBE_TEMPLATE,
});
const iterations = intEnv(__ENV, "ITERATIONS", 1, 1, 100_000);
const { caseName, explicitAfter } = cursorFromEnv(__ENV, THREAD_SCENARIO_CASES, "resume");
const explicitThread = __ENV.THREAD_ID || null;
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });

export const options = scenarioOptions(
  { thread: { executor: "per-vu-iterations", vus: 1, iterations, maxDuration: "1h" } },
  iterations,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

/** @type {Promise<{ threadId: string, after: number | null }> | null} resolved once per VU, outside the timed session */
let target = null;

export default async function () {
  await runRecorded(metrics, exec.scenario.iterationInTest, async () => {
    target ??= resolveThread(runtime, config, caseName, explicitAfter, explicitThread);
    const { threadId, after } = await target;
    return runScenarioSession(runtime, config, after, threadId);
  });
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return scenarioSummary(data, {
    scenario: "thread",
    sessions: iterations,
    summaryPath: __ENV.SUMMARY,
    config,
    extra: { threadId: explicitThread },
    cursor: { caseName, explicitAfter },
    runId: __ENV.RUN_ID,
  });
}
