// Glue shared by the k6 scripts (and usable from Node): resolve the case's cursor through
// server.getConfig, then run one session with the scenario's parameters. The runtime's WebSocket,
// clock and timers are passed in, as for runSession.
import { afterSequenceFor, findSequences } from "./env.js";
import { PROBE_TAG } from "./protocol.js";
import { buildSubscribePayload, callUnary, runSession } from "./session.js";

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
 * One session with the scenario's parameters.
 * @param {Runtime} runtime
 * @param {import("./env.js").ScenarioConfig} config
 * @param {number | null} after
 * @returns {Promise<import("./session.js").SessionResult>}
 */
export function runScenarioSession(runtime, config, after) {
  return runSession({
    ...runtime,
    url: config.url,
    token: config.token,
    tokenIn: config.tokenIn,
    headers: config.headers,
    subscribeTag: config.subscribeTag,
    subscribePayload: buildSubscribePayload(config.template, after),
    completion: config.completion,
    ackDelayMs: config.ackDelayMs,
    holdMs: config.holdMs,
    probe: config.probe,
    timeoutMs: config.timeoutMs,
  });
}
