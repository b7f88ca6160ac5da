// The client side's protocol constants, defined once: the RPC tags, the bundled server's dev token,
// the subscribe payload template, the completion marker and the latency case names. The harness
// (scripts/) and the k6 scripts import them from here; the bundled server keeps its own copies
// because it must not import the client. Plain JS: k6 loads this file.

/** The streaming subscription every session opens. */
export const SUBSCRIBE_TAG = "orchestration.subscribeShell";
/** The thread subscription: one thread's catch-up (a snapshot, or its events after a cursor), then its live events. */
export const THREAD_SUBSCRIBE_TAG = "orchestration.subscribeThread";
/** The unary RPC sent as a probe while a chunk's ACK is held (and used to read the fixture's cursors). */
export const PROBE_TAG = "server.getConfig";
/** The bundled server's documented dev token (both scopes); a foreign server has its own. */
export const DEV_TOKEN = "catchup-dev-token";
/** `{after}` is replaced by the resume cursor; with no cursor the property holding it is dropped. */
export const SUBSCRIBE_TEMPLATE = '{"afterSequence":{after},"requestCompletionMarker":true}';
/** The thread subscription's template: `{thread}` is replaced by the thread id, `{after}` as above. */
export const THREAD_SUBSCRIBE_TEMPLATE =
  '{"threadId":"{thread}","afterSequence":{after},"requestCompletionMarker":true}';
/**
 * The stream value that marks the end of the catch-up.
 * @type {{ field: string, value: string }}
 */
export const COMPLETION_MARKER = { field: "kind", value: "synchronized" };
/** The WebSocket path of the bundled server. */
export const URL_PATH = "/ws";

/** The harness's latency cases, in report order: the shell subscription's, then the thread subscription's. */
export const LATENCY_CASES = /** @type {const} */ ([
  "snapshot",
  "resume-none",
  "resume-one",
  "resume-many",
  "thread-snapshot",
  "thread-resume",
]);
/** The latency cases that subscribe to a thread (the rest subscribe to the shell). */
export const THREAD_CASES = /** @type {const} */ (["thread-snapshot", "thread-resume"]);
/** scenarios/thread.js's CASE names: a snapshot of the thread, or a resume after its cursor. */
export const THREAD_SCENARIO_CASES = /** @type {const} */ (["snapshot", "resume"]);
/** The k6 scripts' CASE names (the same cases, shorter). */
export const SCENARIO_CASES = /** @type {const} */ (["snapshot", "none", "one", "many"]);

// The client's timing defaults and ranges, defined once: the option tables (scripts/options), the
// k6 scripts' environment (env.js) and the drivers read them from here.
/** The ACK delay per chunk a client uses unless told otherwise, ms (the reference study's). */
export const DEFAULT_ACK_DELAY_MS = 100;
/** How long a memory, storm or scale-out session holds the completion chunk's ACK before closing, ms. */
export const DEFAULT_HOLD_MS = 100;
/** The largest ACK delay or hold accepted, ms (by the option tables and by the k6 scripts alike). */
export const MAX_DELAY_MS = 60_000;
/** A session's deadline unless told otherwise, ms. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;
/** The longest session deadline accepted, ms. */
export const MAX_SESSION_TIMEOUT_MS = 3_600_000;
