// k6 scenario: a reconnect storm. CLIENTS sessions arrive evenly over RAMP_MS through an arrival-rate
// executor (k6 starts each on schedule, whatever the others are doing, as clients do after a server
// restart); each resumes from the cursor or, for the share 1 - RESUME_RATIO, takes a cold snapshot,
// holds the completion chunk HOLD_MS, then closes. Session i resumes when
// floor((i + 1) RESUME_RATIO) > floor(i RESUME_RATIO), the bench's own rule, so resumes are spread
// through the ramp. The cursor is read once, in setup (one server.getConfig call), not per client.
//   k6 run -e URL=ws://127.0.0.1:PORT/ws -e CLIENTS=500 -e RAMP_MS=1000 scenarios/storm.js
// CASE: many (default), none or one; or AFTER_SEQUENCE=N. On k6-operator, `parallelism` splits the
// arrival schedule across runners; session indexes stay unique (iterationInTest), so the runners'
// summaries merge (`catchup-bench report --merge`). The harness's own storm (`bench --storm`) also
// samples the server's memory; this script drives the load only.
// Other env as in snapshot.js: URL, TOKEN, TOKEN_IN, HEADERS, ACK_DELAY_MS, SUBSCRIBE_TAG, SUBSCRIBE_PAYLOAD,
// COMPLETION, PROBE_TAG, PROBE_PAYLOAD, TIMEOUT_MS, THRESHOLDS, SUMMARY.
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

const config = scenarioConfigFromEnv(__ENV, { holdMs: 100 });
const clients = intEnv(__ENV, "CLIENTS", 100, 1, 100000);
// An arrival-rate scenario needs a duration: 1 ms stands for "all at once".
const rampMs = intEnv(__ENV, "RAMP_MS", 1, 1, 3600000);
const resumeRatio = ratioEnv(__ENV.RESUME_RATIO);
const RESUME_CASES = SCENARIO_CASES.filter((c) => c !== "snapshot");
const { caseName, explicitAfter } = cursorFromEnv(__ENV, RESUME_CASES, "many");
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });

export const options = scenarioOptions(
  {
    storm: {
      executor: "constant-arrival-rate",
      // CLIENTS iterations per RAMP_MS, for RAMP_MS: exactly CLIENTS arrivals, RAMP_MS / CLIENTS apart.
      rate: clients,
      timeUnit: `${rampMs}ms`,
      duration: `${rampMs}ms`,
      preAllocatedVUs: clients,
      maxVUs: clients,
      // A session still catching up when the arrivals end gets its own timeout to finish.
      gracefulStop: `${config.timeoutMs + 5000}ms`,
    },
  },
  clients,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

/**
 * RESUME_RATIO: a number from 0 to 1 (default 1: every client resumes).
 * @param {string | undefined} raw
 * @returns {number}
 */
function ratioEnv(raw) {
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!/^(0(\.\d+)?|1(\.0*)?|\.\d+)$/.test(raw) || !(n >= 0 && n <= 1)) {
    throw new Error(`RESUME_RATIO must be a number from 0 to 1 (got ${JSON.stringify(raw)})`);
  }
  return n;
}

/**
 * Whether session i resumes (true) or takes a cold snapshot.
 * @param {number} i
 * @returns {boolean}
 */
function resumes(i) {
  return Math.floor((i + 1) * resumeRatio + 1e-9) > Math.floor(i * resumeRatio + 1e-9);
}

/** One server.getConfig call for the whole test: the cursor every resuming client uses. */
export async function setup() {
  return { after: await resolveAfterSequence(runtime, config, caseName, explicitAfter) };
}

/** @param {{ after: number | null }} data */
export default async function (data) {
  const session = exec.scenario.iterationInTest;
  await runRecorded(metrics, session, () => runScenarioSession(runtime, config, resumes(session) ? data.after : null));
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return scenarioSummary(data, {
    scenario: "storm",
    sessions: clients,
    summaryPath: __ENV.SUMMARY,
    config,
    extra: { clients, rampMs, resumeRatio },
    cursor: { caseName, explicitAfter },
  });
}
