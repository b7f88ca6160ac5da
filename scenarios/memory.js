// k6 scenario: CLIENTS concurrent subscriptions that hold the completion chunk's ACK for HOLD_MS,
// then close (the memory study; sample the server's heap/RSS from outside while it runs).
//   k6 run -e URL=ws://127.0.0.1:PORT/ws -e CLIENTS=4 -e HOLD_MS=100 scenarios/memory.js
// CASE: many (resume from the fixture's cursor; default), none, one, or snapshot; or AFTER_SEQUENCE.
// Other env as in snapshot.js. Needs k6 >= 1.6 (k6/websockets); older k6 cannot load it.
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { CASES, cursorFromEnv, intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { clientsSummary, recordResult } from "./lib/k6-summary.js";
import { DEFAULT_HOLD_MS } from "./lib/protocol.js";
import { resolveAfterSequence, runScenarioSession } from "./lib/scenario.js";
import { emptySessionResult } from "./lib/session.js";
import { createSessionMetrics, recordSession, scenarioOptions } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV, { holdMs: DEFAULT_HOLD_MS });
const clients = intEnv(__ENV, "CLIENTS", 1, 1, 10_000);
const { caseName, explicitAfter } = cursorFromEnv(__ENV, CASES, "many");
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });

export const options = scenarioOptions(
  // One VU opens all CLIENTS sockets at once, so they overlap as in the reference study.
  { memory: { executor: "per-vu-iterations", vus: 1, iterations: 1, maxDuration: "1h" } },
  clients,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

export default async function () {
  let after;
  try {
    after = await resolveAfterSequence(runtime, config, caseName, explicitAfter);
  } catch (e) {
    const failed = emptySessionResult(String(/** @type {Error} */ (e).message ?? e));
    console.error(failed.error);
    for (let i = 0; i < clients; i++) recordSession(metrics, failed, i);
    return;
  }
  const sessions = [];
  for (let i = 0; i < clients; i++) sessions.push(runScenarioSession(runtime, config, after));
  const results = await Promise.all(sessions);
  results.forEach((result, i) => {
    recordResult(metrics, result, i);
  });
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return clientsSummary(data, __ENV, "memory", { clients, config, caseName, explicitAfter });
}
