// k6 scenario: a reconnect storm. CLIENTS sessions arrive evenly over RAMP_MS (default 0: all at
// once), as clients do after a server restart; each resumes from the cursor or, for the share
// 1 - RESUME_RATIO, takes a cold snapshot, holds the completion chunk HOLD_MS, then closes. Session
// i resumes when floor((i + 1) RESUME_RATIO) > floor(i RESUME_RATIO), the bench's own rule, so
// resumes are spread through the ramp.
//   k6 run -e URL=ws://127.0.0.1:PORT/ws -e CLIENTS=500 -e RAMP_MS=1000 scenarios/storm.js
// The schedule: every client is a VU (per-vu-iterations, one iteration each), and session i starts at
// START + floor(i RAMP_MS / CLIENTS). No arrival-rate executor: k6 refuses a constant-arrival-rate
// duration under 1 s (lib/executor/constant_arrival_rate.go:105), so "all at once" and short ramps
// could not be one. START is START_AT (a wall-clock instant, epoch milliseconds) when given, else
// the end of this instance's setup(). setup() runs once per k6 instance: on k6-operator once per
// runner (k6-operator calls /v1/setup only for cloud runs), and runners start one after another,
// so only START_AT lines their schedules up (`catchup-bench k6-operator` sets it). The cursor is
// read in setup (one server.getConfig call per instance), not per client.
// CASE: many (default), none or one; or AFTER_SEQUENCE=N. On k6-operator, `parallelism` splits the
// VUs across runners; session indexes stay unique (iterationInTest is numbered in the whole test),
// so the runners' summaries merge (`catchup-bench report --merge`). The harness's own storm
// (`bench --storm`) also samples the server's memory; this script drives the load only.
// Other env as in snapshot.js: URL, TOKEN, TOKEN_IN, HEADERS, ACK_DELAY_MS, SUBSCRIBE_TAG, SUBSCRIBE_PAYLOAD,
// COMPLETION, PROBE_TAG, PROBE_PAYLOAD, TIMEOUT_MS, THRESHOLDS, SUMMARY, RUN_ID.
// Needs k6 >= 1.6 (k6/websockets); older k6 cannot load it.
import exec from "k6/execution";
import { Counter, Trend } from "k6/metrics";
import { clearTimeout, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { cursorFromEnv, intEnv, jsonEnv, scenarioConfigFromEnv } from "./lib/env.js";
import { runRecorded, scenarioSummary } from "./lib/k6-summary.js";
import { createPhaseMetrics, phaseRecorder } from "./lib/phase-marks.js";
import { DEFAULT_HOLD_MS, SCENARIO_CASES } from "./lib/protocol.js";
import { resolveAfterSequence, runScenarioSession } from "./lib/scenario.js";
import { createSessionMetrics, scenarioOptions } from "./lib/summary.js";

const config = scenarioConfigFromEnv(__ENV, { holdMs: DEFAULT_HOLD_MS });
const clients = intEnv(__ENV, "CLIENTS", 100, 1, 100000);
const rampMs = intEnv(__ENV, "RAMP_MS", 0, 0, 3600000);
const startAt = startAtEnv(__ENV.START_AT);
const resumeRatio = ratioEnv(__ENV.RESUME_RATIO);
const RESUME_CASES = SCENARIO_CASES.filter((c) => c !== "snapshot");
const { caseName, explicitAfter } = cursorFromEnv(__ENV, RESUME_CASES, "many");
const runtime = { WebSocket, now: Date.now, setTimeout, clearTimeout };

// k6 creates metrics only in the init context: here, at module top level.
const metrics = createSessionMetrics({ Trend, Counter });
// Wall-clock phase marks, to line this runner up with `catchup-bench sample` on the server's host.
const phases = createPhaseMetrics({ Trend });

export const options = scenarioOptions(
  // Every client is a VU from the start; each waits for its own slot (see the header).
  { storm: { executor: "per-vu-iterations", vus: clients, iterations: 1, maxDuration: "1h" } },
  clients,
  jsonEnv(__ENV, "THRESHOLDS", {}),
);

/**
 * START_AT: the wall-clock instant (epoch milliseconds) the schedule starts at, or null.
 * @param {string | undefined} raw
 * @returns {number | null}
 */
function startAtEnv(raw) {
  if (raw === undefined || raw === "") return null;
  if (!/^\d{13}$/.test(raw)) {
    throw new Error(
      `START_AT must be a wall-clock instant in epoch milliseconds (13 digits) (got ${JSON.stringify(raw)})`,
    );
  }
  return Number(raw);
}

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

/** One server.getConfig call per instance: the cursor every resuming client uses; and the schedule's start. */
export async function setup() {
  const after = await resolveAfterSequence(runtime, config, caseName, explicitAfter);
  const start = startAt ?? Date.now();
  const late = Date.now() - start;
  if (startAt !== null && late > 0)
    console.warn(`storm: START_AT passed ${late} ms before this instance's setup ended; its arrivals start late`);
  return { after, start };
}

/** @param {{ after: number | null, start: number }} data */
export default async function (data) {
  const session = exec.scenario.iterationInTest;
  const wait = data.start + Math.floor((session * rampMs) / clients) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  await runRecorded(metrics, session, () =>
    runScenarioSession(runtime, config, resumes(session) ? data.after : null, null, phaseRecorder(phases)),
  );
}

/** @param {import("./lib/summary.js").SummaryData} data */
export function handleSummary(data) {
  return scenarioSummary(data, {
    scenario: "storm",
    sessions: clients,
    summaryPath: __ENV.SUMMARY,
    config,
    extra: { clients, rampMs, resumeRatio, startAt },
    runId: __ENV.RUN_ID,
    cursor: { caseName, explicitAfter },
  });
}
