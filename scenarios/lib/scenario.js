// Glue shared by the k6 scripts (and usable from Node): resolve the case's cursor through
// server.getConfig, then run one session with the scenario's parameters. The runtime's WebSocket,
// clock and timers are passed in, as for runSession.
import { afterSequenceFor, findSequences, findThread } from "./env.js";
import { PROBE_TAG } from "./protocol.js";
import { buildSubscribePayload, callUnary, runSession, withThreadId } from "./session.js";

/**
 * @typedef {object} Runtime
 * @property {new (...args: any[]) => any} WebSocket
 * @property {() => number} now
 * @property {import("./session.js").SetTimeoutFn} setTimeout
 * @property {import("./session.js").ClearTimeoutFn} clearTimeout
 */

/**
 * The afterSequence to subscribe with: AFTER_SEQUENCE when given, else the case's cursor read from
 * server.getConfig (latestSequence / cursorSequence). Throws with a readable reason.
 * @param {Runtime} runtime
 * @param {import("./env.js").ScenarioConfig} config
 * @param {import("./env.js").CaseName} caseName
 * @param {number | null} explicitAfter
 * @returns {Promise<number | null>}
 */
export async function resolveAfterSequence(runtime, config, caseName, explicitAfter) {
  if (explicitAfter !== null) return explicitAfter;
  if (caseName === "snapshot") return null;
  const reply = await callUnary({ ...runtime, ...config, tag: PROBE_TAG, payload: {} });
  if (!reply.ok) throw new Error(`cannot resolve CASE=${caseName}: ${reply.error}`);
  const seq = findSequences(reply.value);
  if (!seq) {
    throw new Error(
      `cannot resolve CASE=${caseName}: server.getConfig's reply has no latestSequence/cursorSequence; set AFTER_SEQUENCE`,
    );
  }
  return afterSequenceFor(caseName, seq);
}

/**
 * The thread and cursor of a thread.js session: THREAD_ID and AFTER_SEQUENCE when given, else the
 * fixture's measured thread and its cursor read from server.getConfig (a snapshot needs no cursor).
 * Throws with a readable reason.
 * @param {Runtime} runtime
 * @param {import("./env.js").ScenarioConfig} config
 * @param {"snapshot" | "resume"} caseName
 * @param {number | null} explicitAfter
 * @param {string | null} explicitThread
 * @returns {Promise<{ threadId: string, after: number | null }>}
 */
export async function resolveThread(runtime, config, caseName, explicitAfter, explicitThread) {
  const wanted = caseName === "snapshot" && explicitAfter === null ? null : explicitAfter;
  if (explicitThread !== null && (explicitAfter !== null || caseName === "snapshot")) {
    return { threadId: explicitThread, after: wanted };
  }
  const reply = await callUnary({ ...runtime, ...config, tag: PROBE_TAG, payload: {} });
  if (!reply.ok) throw new Error(`cannot resolve the thread: ${reply.error}`);
  const found = findThread(reply.value);
  if (!found) {
    throw new Error(
      "cannot resolve the thread: server.getConfig's reply has no threadId/threadCursorSequence; set THREAD_ID (and AFTER_SEQUENCE)",
    );
  }
  if (explicitThread !== null && explicitThread !== found.threadId) {
    throw new Error("THREAD_ID is not the fixture's measured thread: set AFTER_SEQUENCE for it too");
  }
  const after = explicitAfter ?? (caseName === "snapshot" ? null : found.threadCursorSequence);
  return { threadId: found.threadId, after };
}

/**
 * One session with the scenario's parameters; with a threadId, `{thread}` in the template becomes it.
 * @param {Runtime} runtime
 * @param {import("./env.js").ScenarioConfig} config
 * @param {number | null} after
 * @param {string | null} [threadId]
 * @param {(name: string, tMs: number) => void} [onPhase]  e.g. phase-marks.js phaseRecorder
 * @returns {Promise<import("./session.js").SessionResult>}
 */
export function runScenarioSession(runtime, config, after, threadId = null, onPhase = undefined) {
  const template = threadId === null ? config.template : withThreadId(config.template, threadId);
  return runSession({
    ...runtime,
    url: config.url,
    token: config.token,
    tokenIn: config.tokenIn,
    headers: config.headers,
    subscribeTag: config.subscribeTag,
    subscribePayload: buildSubscribePayload(template, after),
    completion: config.completion,
    ackDelayMs: config.ackDelayMs,
    holdMs: config.holdMs,
    probe: config.probe,
    timeoutMs: config.timeoutMs,
    onPhase,
  });
}
