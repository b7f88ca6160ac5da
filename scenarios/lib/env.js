// Scenario parameters from an environment map (k6's __ENV, or process.env in the harness), validated
// with one-line errors that name the variable and the allowed values. Pure.
import {
  SCENARIO_CASES as CASES,
  COMPLETION_MARKER,
  DEFAULT_ACK_DELAY_MS,
  DEFAULT_SESSION_TIMEOUT_MS,
  DEV_TOKEN,
  MAX_DELAY_MS,
  MAX_SESSION_TIMEOUT_MS,
  PROBE_TAG,
  SUBSCRIBE_TAG,
  SUBSCRIBE_TEMPLATE,
} from "./protocol.js";
import { buildSubscribePayload, withThreadId } from "./session.js";

/** The k6 scripts' CASE names (defined in protocol.js). */
export { CASES };

/**
 * @typedef {Record<string, string | undefined>} Env
 * @typedef {typeof CASES[number]} CaseName
 *
 * @typedef {object} ScenarioConfig
 * @property {string} url
 * @property {string | null} token
 * @property {"header" | "query"} tokenIn
 * @property {Record<string, string>} headers  extra upgrade headers (HEADERS, a JSON object of strings)
 * @property {string} subscribeTag
 * @property {string} template  subscribe payload template with {after}
 * @property {import("./session.js").CompletionRule} completion
 * @property {number} ackDelayMs
 * @property {number} holdMs
 * @property {import("./session.js").ProbeSpec | null} probe
 * @property {number} timeoutMs
 */

/**
 * @param {Env} env
 * @param {{ holdMs?: number, subscribeTag?: string, template?: string }} [defaults]  a script's own
 *   defaults (thread.js subscribes to a thread)
 * @returns {ScenarioConfig}
 */
export function scenarioConfigFromEnv(env, defaults = {}) {
  const url = env.URL;
  if (!url || !/^wss?:\/\//.test(url)) {
    throw new Error(`URL must be a ws:// or wss:// address, e.g. ws://127.0.0.1:PORT/ws (got ${JSON.stringify(url)})`);
  }
  const template = env.SUBSCRIBE_PAYLOAD ?? defaults.template ?? SUBSCRIBE_TEMPLATE;
  try {
    buildSubscribePayload(withThreadId(template, "t"), 0);
  } catch (e) {
    throw new Error(`SUBSCRIBE_PAYLOAD: ${/** @type {Error} */ (e).message}`);
  }
  const probeTag = env.PROBE_TAG ?? PROBE_TAG;
  return {
    url,
    token: env.TOKEN === undefined ? DEV_TOKEN : env.TOKEN === "" ? null : env.TOKEN,
    tokenIn: enumEnv(env, "TOKEN_IN", ["header", "query"], "header"),
    headers: headersEnv(env),
    subscribeTag: env.SUBSCRIBE_TAG || defaults.subscribeTag || SUBSCRIBE_TAG,
    template,
    completion: parseCompletion(env.COMPLETION),
    ackDelayMs: intEnv(env, "ACK_DELAY_MS", DEFAULT_ACK_DELAY_MS, 0, MAX_DELAY_MS),
    // No hold unless the script holds (memory.js, storm.js and scaleout.js pass DEFAULT_HOLD_MS).
    holdMs: intEnv(env, "HOLD_MS", defaults.holdMs ?? 0, 0, MAX_DELAY_MS),
    probe:
      probeTag === "" || probeTag === "none" ? null : { tag: probeTag, payload: jsonEnv(env, "PROBE_PAYLOAD", {}) },
    timeoutMs: intEnv(env, "TIMEOUT_MS", DEFAULT_SESSION_TIMEOUT_MS, 1, MAX_SESSION_TIMEOUT_MS),
  };
}

/**
 * HEADERS: a JSON object of header names to string values (default none).
 * @param {Env} env
 * @returns {Record<string, string>}
 */
export function headersEnv(env) {
  const value = jsonEnv(env, "HEADERS", {});
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("HEADERS must be a JSON object of header names to string values");
  }
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== "string") throw new Error(`HEADERS: the value of ${JSON.stringify(name)} must be a string`);
  }
  return /** @type {Record<string, string>} */ (value);
}

/**
 * "kind=synchronized" (a value whose field equals the text) or "exit" (the stream's Exit).
 * @param {string | undefined} text
 * @returns {import("./session.js").CompletionRule}
 */
export function parseCompletion(text) {
  if (text === undefined || text === "") return COMPLETION_MARKER;
  if (text === "exit") return "exit";
  const eq = text.indexOf("=");
  if (eq > 0 && eq < text.length - 1) return { field: text.slice(0, eq), value: text.slice(eq + 1) };
  throw new Error(`COMPLETION must be "exit" or FIELD=VALUE such as kind=synchronized (got ${JSON.stringify(text)})`);
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {number} fallback
 * @param {number} min
 * @param {number} max
 * @returns {number}
 */
export function intEnv(env, name, fallback, min, max) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}

/**
 * @template {string} T
 * @param {Env} env
 * @param {string} name
 * @param {readonly T[]} allowed
 * @param {T} fallback
 * @returns {T}
 */
export function enumEnv(env, name, allowed, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(/** @type {readonly string[]} */ (allowed).includes(raw))) {
    throw new Error(`${name} must be one of ${allowed.join(", ")} (got ${JSON.stringify(raw)})`);
  }
  return /** @type {T} */ (raw);
}

/**
 * @param {Env} env
 * @param {string} name
 * @param {unknown} fallback
 * @returns {any}
 */
export function jsonEnv(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new Error(`${name} must be valid JSON (${/** @type {Error} */ (e).message}; got ${JSON.stringify(raw)})`);
  }
}

/**
 * Which cursor to resume from: AFTER_SEQUENCE=N explicitly, or CASE (one of allowed; fallback when
 * unset) to be resolved through server.getConfig. Setting both is an error.
 * @template {string} C
 * @param {Env} env
 * @param {readonly C[]} allowed
 * @param {C} fallback
 * @returns {{ caseName: C, explicitAfter: number | null }}
 */
export function cursorFromEnv(env, allowed, fallback) {
  const explicitAfter = env.AFTER_SEQUENCE ? intEnv(env, "AFTER_SEQUENCE", 0, 0, Number.MAX_SAFE_INTEGER) : null;
  if (explicitAfter !== null && env.CASE) throw new Error("set CASE or AFTER_SEQUENCE, not both");
  return { caseName: enumEnv(env, "CASE", allowed, fallback), explicitAfter };
}

/**
 * The resume cursor for a case from server.getConfig's reply: none = latest (no new events),
 * one = latest - 1, many = the fixture's cursor, snapshot = no cursor.
 * @param {CaseName} caseName
 * @param {{ latestSequence: number, cursorSequence: number }} seq
 * @returns {number | null}
 */
export function afterSequenceFor(caseName, seq) {
  switch (caseName) {
    case "snapshot":
      return null;
    case "none":
      return seq.latestSequence;
    case "one":
      return Math.max(0, seq.latestSequence - 1);
    case "many":
      return seq.cursorSequence;
  }
}

/**
 * Finds the fixture's latestSequence and cursorSequence anywhere in a server.getConfig reply (the
 * bundled server nests them under its fixture metadata). A top-level latestSequence wins: it is the
 * store's live sequence, which moves past the fixture's when commands append events.
 * @param {unknown} value
 * @returns {{ latestSequence: number, cursorSequence: number } | null}
 */
export function findSequences(value) {
  /** @type {unknown[]} */
  const queue = [value];
  while (queue.length > 0) {
    const v = queue.shift();
    if (!v || typeof v !== "object") continue;
    const o = /** @type {Record<string, unknown>} */ (v);
    if (Number.isSafeInteger(o.latestSequence) && Number.isSafeInteger(o.cursorSequence)) {
      const top = /** @type {Record<string, unknown>} */ (value).latestSequence;
      const latest = Number.isSafeInteger(top) ? Number(top) : Number(o.latestSequence);
      return { latestSequence: latest, cursorSequence: Number(o.cursorSequence) };
    }
    queue.push(...Object.values(o));
  }
  return null;
}

/**
 * Finds the measured thread (threadId) and its resume cursor (threadCursorSequence) anywhere in a
 * server.getConfig reply (the bundled server nests them under its fixture metadata).
 * @param {unknown} value
 * @returns {{ threadId: string, threadCursorSequence: number } | null}
 */
export function findThread(value) {
  /** @type {unknown[]} */
  const queue = [value];
  while (queue.length > 0) {
    const v = queue.shift();
    if (!v || typeof v !== "object") continue;
    const o = /** @type {Record<string, unknown>} */ (v);
    if (typeof o.threadId === "string" && o.threadId !== "" && Number.isSafeInteger(o.threadCursorSequence)) {
      return { threadId: o.threadId, threadCursorSequence: Number(o.threadCursorSequence) };
    }
    queue.push(...Object.values(o));
  }
  return null;
}
