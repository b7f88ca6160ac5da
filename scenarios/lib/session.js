// The delayed-ACK protocol client shared by the k6 scripts and the Node driver. One session: connect
// with a token, subscribe, ACK every chunk once after ackDelayMs, optionally probe with a unary call
// while the first chunk's ACK is held, stop at the completion marker (or the stream's Exit),
// optionally hold the completion chunk's ACK, close. No Node or k6 imports: the WebSocket class and
// the clock are passed in. Figures cover everything up to and including the completion frame.
import { clip, decodeFrame, encodeAck, encodeRequest, errorText, utf8ByteLength } from "./framing.js";
import { COMPLETION_MARKER, DEFAULT_SESSION_TIMEOUT_MS, PROBE_TAG, SUBSCRIBE_TAG } from "./protocol.js";

const SUBSCRIBE_ID = "1";
const PROBE_ID = "2";
const AFTER_SENTINEL = "\u0000catchup-after\u0000";

/**
 * @typedef {{ field: string, value: unknown } | "exit"} CompletionRule
 * @typedef {{ tag: string, payload: unknown }} ProbeSpec
 * @typedef {(name: string, tMs: number) => void} PhaseListener
 * @typedef {(fn: () => void, ms: number) => unknown} SetTimeoutFn
 * @typedef {(handle: any) => void} ClearTimeoutFn
 *
 * @typedef {object} ConnectOptions
 * @property {new (...args: any[]) => any} WebSocket  constructor called as new WebSocket(url, undefined, {headers})
 * @property {() => number} now  a clock in ms (monotonic where the runtime has one)
 * @property {SetTimeoutFn} setTimeout
 * @property {ClearTimeoutFn} clearTimeout
 * @property {string} url  e.g. ws://127.0.0.1:PORT/ws
 * @property {string | null} [token]  bearer token; null or "" sends none
 * @property {"header" | "query"} [tokenIn]  Authorization header (default) or ?token= when headers are unavailable
 * @property {Record<string, string>} [headers]  extra headers of the WebSocket upgrade request
 * @property {number} [timeoutMs]  the whole session's deadline (default DEFAULT_SESSION_TIMEOUT_MS)
 *
 * @typedef {object} SessionExtra
 * @property {string} [subscribeTag]
 * @property {unknown} [subscribePayload]  already built (see buildSubscribePayload)
 * @property {CompletionRule} [completion]
 * @property {number} [ackDelayMs]
 * @property {number} [holdMs]  hold the completion chunk's ACK this long, then ACK and close
 * @property {ProbeSpec | null} [probe]  default server.getConfig with {}; null for none
 * @property {PhaseListener} [onPhase]  "connect","open","first-chunk","completion","hold-end","close"
 * @property {(s: string) => number} [utf8Length]  byte counter (Node may pass Buffer.byteLength)
 *
 * @typedef {ConnectOptions & SessionExtra} SessionOptions
 *
 * @typedef {object} SessionResult
 * @property {boolean} ok
 * @property {number | null} completionMs  subscribe Request sent -> completion frame received
 * @property {number | null} [acknowledgedMs]  subscribe Request sent -> the completion chunk's ACK sent
 *   (after ackDelayMs, or after holdMs when holding); equals completionMs on completion by Exit, which
 *   has no chunk to ACK
 * @property {number | null} firstChunkMs  subscribe Request sent -> first Chunk received
 * @property {number | null} [firstAckMs]  subscribe Request sent -> the first Chunk's ACK sent (after
 *   ackDelayMs, or after holdMs when that chunk carries the completion marker)
 * @property {number} chunks  Chunk frames through completion
 * @property {number} values  values in those frames
 * @property {number} bytes  UTF-8 bytes of those frames
 * @property {number | null} probeMs  latency of the unary probe
 * @property {string | null} error  why the session failed, for a person
 */

/**
 * The figures of a session result, in a row's order. `empty`: how the figure reads before it is
 * measured: null (set once, where it happens: a time, or a size at an event) or 0 (a running count).
 * `time`: k6 records it as a time (its Trend's isTime), else as a plain number. The k6 summary records
 * one metric per figure (summary.js), the merged k6 report shows one column per figure, and the
 * harness's metric table (scripts/results/metric-names.ts) judges those it names, so a new figure is
 * one entry here.
 */
export const SESSION_FIGURES = /** @type {const} */ ([
  { key: "completionMs", empty: null, time: true },
  { key: "acknowledgedMs", empty: null, time: true },
  { key: "firstChunkMs", empty: null, time: true },
  { key: "firstAckMs", empty: null, time: true },
  { key: "chunks", empty: 0, time: false },
  { key: "values", empty: 0, time: false },
  { key: "bytes", empty: 0, time: false },
  { key: "probeMs", empty: null, time: true },
]);

/**
 * @typedef {(typeof SESSION_FIGURES)[number]["key"]} SessionFigure
 */

/**
 * A row with nothing measured yet (ok: false until the completion frame arrives); with an error, the
 * row of a session that failed before it could start.
 * @param {string | null} [error]
 * @returns {SessionResult}
 */
export function emptySessionResult(error = null) {
  /** @type {Record<string, unknown>} */
  const row = { ok: false };
  for (const f of SESSION_FIGURES) row[f.key] = f.empty;
  row.error = error;
  return /** @type {SessionResult} */ (/** @type {unknown} */ (row));
}

/**
 * Substitutes the resume cursor into a payload template. `{after}` (bare or quoted) becomes the
 * number; with after === null the property (or array item) holding it is removed, so one template
 * serves snapshot and resume. Throws an Error naming the template when it is not JSON.
 * @param {string} template
 * @param {number | null} after
 * @returns {unknown}
 */
export function buildSubscribePayload(template, after) {
  if (after !== null && !(Number.isSafeInteger(after) && after >= 0)) {
    throw new Error(`afterSequence must be an integer >= 0 or null (got ${JSON.stringify(after)})`);
  }
  const marked = template.replace(/"\{after\}"|\{after\}/g, JSON.stringify(AFTER_SENTINEL));
  /** @type {unknown} */
  let parsed;
  try {
    parsed = JSON.parse(marked);
  } catch (e) {
    throw new Error(`subscribe payload template is not JSON (${errorText(e)}): ${clip(template)}`);
  }
  /** @param {unknown} v @returns {unknown} */
  const substitute = (v) => {
    if (v === AFTER_SENTINEL) return after;
    if (Array.isArray(v)) return v.filter((x) => !(x === AFTER_SENTINEL && after === null)).map(substitute);
    if (v && typeof v === "object") {
      /** @type {Record<string, unknown>} */
      const out = {};
      for (const [k, x] of Object.entries(v)) {
        if (x === AFTER_SENTINEL && after === null) continue;
        out[k] = substitute(x);
      }
      return out;
    }
    return v;
  };
  return substitute(parsed);
}

/**
 * Puts a thread id into a payload template: `{thread}` (bare or quoted) becomes the id as a JSON
 * string, so one template serves any thread; `{after}` is left for buildSubscribePayload.
 * @param {string} template
 * @param {string} threadId
 * @returns {string}
 */
export function withThreadId(template, threadId) {
  return template.replace(/"\{thread\}"|\{thread\}/g, () => JSON.stringify(threadId));
}

/**
 * The URL and constructor params for a token: header by default, `?token=` otherwise; `headers` are
 * extra upgrade-request headers sent either way.
 * @param {string} url
 * @param {string | null | undefined} token
 * @param {"header" | "query"} tokenIn
 * @param {Record<string, string>} [headers]
 * @returns {{ url: string, params: { headers?: Record<string, string> } }}
 */
export function authenticate(url, token, tokenIn, headers = {}) {
  const extra = Object.keys(headers).length > 0 ? { headers: { ...headers } } : {};
  if (!token) return { url, params: extra };
  if (tokenIn === "query") {
    return { url: `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`, params: extra };
  }
  return { url, params: { headers: { ...headers, Authorization: `Bearer ${token}` } } };
}

/**
 * A connection's options with the library's defaults applied.
 * @param {ConnectOptions} options
 */
function connectSettings(options) {
  const { token = null, tokenIn = "header", timeoutMs = DEFAULT_SESSION_TIMEOUT_MS } = options;
  return {
    WebSocket: options.WebSocket,
    now: options.now,
    setTimeout: options.setTimeout,
    clearTimeout: options.clearTimeout,
    token,
    tokenIn,
    timeoutMs,
  };
}

/**
 * A session's options with the library's defaults applied.
 * @param {SessionOptions} options
 */
function sessionSettings(options) {
  const { WebSocket, now, setTimeout, clearTimeout, token, tokenIn, timeoutMs } = connectSettings(options);
  const {
    subscribeTag = SUBSCRIBE_TAG,
    subscribePayload = {},
    completion = COMPLETION_MARKER,
    // Not DEFAULT_ACK_DELAY_MS / DEFAULT_HOLD_MS: those are measurement conditions the callers choose
    // (env.js and the option tables apply them); the library itself adds no delay it was not asked for.
    ackDelayMs = 0,
    holdMs = 0,
    probe = { tag: PROBE_TAG, payload: {} },
    onPhase,
    utf8Length = utf8ByteLength,
  } = options;
  return {
    ...{ WebSocket, now, setTimeout, clearTimeout, token, tokenIn, subscribeTag, subscribePayload, completion },
    ...{ ackDelayMs, holdMs, probe, timeoutMs, onPhase, utf8Length, url: options.url, headers: options.headers },
  };
}

/**
 * @typedef {ReturnType<typeof sessionSettings>} SessionSettings
 *
 * @typedef {object} Session  one running session: its settings, its state, and the steps' shared helpers
 * @property {SessionSettings} cfg
 * @property {SessionResult} result
 * @property {any} socket
 * @property {boolean} done  resolved: nothing more happens
 * @property {boolean} opened
 * @property {number} sentAt  when the subscribe Request went out
 * @property {boolean} completed  the completion frame (or Exit) arrived
 * @property {boolean} holdDone  the completion chunk's ACK went out (after the delay or the hold)
 * @property {number} probeSentAt  -1 until the probe went out
 * @property {boolean} probeDone
 * @property {(name: string) => void} phase  a phase mark to onPhase (its failure is not the session's)
 * @property {(error: string | null) => void} finish  resolves once: timers cleared, socket closed
 * @property {(fn: () => void) => () => void} guarded  runs fn unless finished; a throw finishes the session
 * @property {(fn: () => void, ms: number) => void} schedule  a guarded timer the finish clears
 * @property {(text: string) => void} send
 * @property {() => string} waitingFor  what the session waits for, for a timeout's or a close's reason
 * @property {() => void} maybeFinish  finishes once completed, ACKed (or held) and the probe answered
 */

/**
 * A session's state and helpers; `resolve` receives its result once.
 * @param {SessionSettings} cfg
 * @param {(result: SessionResult) => void} resolve
 * @returns {Session}
 */
function newSession(cfg, resolve) {
  /** @type {Set<unknown>} */
  const timers = new Set();
  /** @type {Session} */
  const s = {
    cfg,
    result: emptySessionResult(),
    socket: null,
    done: false,
    opened: false,
    sentAt: 0,
    completed: false,
    holdDone: false,
    probeSentAt: -1,
    probeDone: cfg.probe === null,
    phase: (name) => {
      if (!cfg.onPhase) return;
      try {
        cfg.onPhase(name, cfg.now());
      } catch {
        // A listener's failure is not the session's.
      }
    },
    finish: (error) => {
      if (s.done) return;
      s.done = true;
      for (const h of timers) cfg.clearTimeout(h);
      timers.clear();
      s.result.ok = error === null;
      s.result.error = error;
      closeIfOpen(s.socket);
      s.phase("close");
      resolve(s.result);
    },
    guarded: (fn) => () => {
      if (s.done) return;
      try {
        fn();
      } catch (e) {
        s.finish(`client error: ${errorText(e)}`);
      }
    },
    schedule: (fn, ms) => {
      /** @type {unknown} */
      const h = cfg.setTimeout(() => {
        timers.delete(h);
        s.guarded(fn)();
      }, ms);
      timers.add(h);
    },
    send: (text) => s.socket.send(text),
    waitingFor: () => {
      if (!s.opened) return "the connection to open";
      if (!s.completed) {
        const rule = cfg.completion;
        const what = rule === "exit" ? "the stream's Exit" : `the completion marker ${completionLabel(rule)}`;
        return `${what} (${s.result.chunks} chunks so far)`;
      }
      if (!s.probeDone) return `the probe ${cfg.probe?.tag} reply`;
      return "the end of the hold";
    },
    maybeFinish: () => {
      if (s.completed && s.holdDone && s.probeDone) s.finish(null);
    },
  };
  return s;
}

/**
 * The completion frame (or, with completion "exit", the stream's Exit: ack null) arrived at arrivedAt.
 * @param {Session} s
 * @param {number} arrivedAt
 * @param {(() => void) | null} ack
 */
function onCompletion(s, arrivedAt, ack) {
  const { holdMs, ackDelayMs, now } = s.cfg;
  s.completed = true;
  s.result.completionMs = arrivedAt - s.sentAt;
  s.phase("completion");
  // A probe that never went out (no chunk before the Exit) has nothing to wait for.
  if (s.probeSentAt < 0) s.probeDone = true;
  if (ack === null) {
    // Completion by Exit: the last chunk's ACK already went out (the Exit waits for it).
    s.result.acknowledgedMs = s.result.completionMs;
    if (holdMs > 0) {
      s.schedule(() => {
        s.phase("hold-end");
        s.holdDone = true;
        s.maybeFinish();
      }, holdMs);
    } else s.holdDone = true;
    return s.maybeFinish();
  }
  // The completion chunk is ACKed like any other (after the ACK delay), or after the hold: a
  // server's own timer may stop only when that ACK arrives, so both endpoints are recorded.
  const acknowledge = () => {
    ack();
    s.result.acknowledgedMs = now() - s.sentAt;
    if (holdMs > 0) s.phase("hold-end");
    s.holdDone = true;
    s.maybeFinish();
  };
  const delay = holdMs > 0 ? holdMs : ackDelayMs;
  if (delay > 0) s.schedule(acknowledge, delay);
  else acknowledge();
}

/**
 * A Chunk frame: counted through completion, the probe sent on the first, each ACKed once after the delay.
 * @param {Session} s
 * @param {{ requestId: string, values: unknown[] }} frame
 * @param {unknown} data  the frame's text, for its byte count
 * @param {number} arrivedAt
 */
function onChunk(s, frame, data, arrivedAt) {
  const { now, probe, completion, ackDelayMs, utf8Length } = s.cfg;
  const result = s.result;
  if (frame.requestId !== SUBSCRIBE_ID) {
    return s.finish(`bad frame: Chunk for request ${frame.requestId}, which is not a stream`);
  }
  const ack = () => {
    s.send(encodeAck(SUBSCRIBE_ID));
    // ACKs go out in chunk order (the server sends no chunk before the last one's ACK): the first is the first chunk's.
    if (result.firstAckMs == null) result.firstAckMs = now() - s.sentAt;
  };
  if (s.completed) {
    // Live items after the marker are not catch-up; ACK them so the stream stays healthy.
    return s.schedule(ack, ackDelayMs);
  }
  result.chunks += 1;
  result.values += frame.values.length;
  result.bytes += utf8Length(/** @type {string} */ (data));
  if (result.chunks === 1) {
    result.firstChunkMs = arrivedAt - s.sentAt;
    s.phase("first-chunk");
    if (probe !== null) {
      s.probeSentAt = now();
      s.send(encodeRequest(PROBE_ID, probe.tag, probe.payload));
    }
  }
  if (completion !== "exit" && frame.values.some((v) => isCompletionMarker(v, completion))) {
    return onCompletion(s, arrivedAt, ack);
  }
  if (ackDelayMs > 0) s.schedule(ack, ackDelayMs);
  else ack();
}

/**
 * An Exit frame: the probe's reply, or the stream's end (its completion with completion "exit").
 * @param {Session} s
 * @param {{ requestId: string, success: boolean, reason?: string }} frame
 * @param {number} arrivedAt
 */
function onExit(s, frame, arrivedAt) {
  const { probe, subscribeTag, completion } = s.cfg;
  if (frame.requestId === PROBE_ID && s.probeSentAt >= 0) {
    if (!frame.success) return s.finish(`probe ${probe?.tag} failed: ${frame.reason}`);
    s.result.probeMs = arrivedAt - s.probeSentAt;
    s.probeDone = true;
    return s.maybeFinish();
  }
  if (frame.requestId !== SUBSCRIBE_ID) {
    return s.finish(`bad frame: Exit for unknown request ${frame.requestId}`);
  }
  if (s.completed) return; // the stream may end while the probe or the hold is pending
  if (!frame.success) return s.finish(`${subscribeTag} failed: ${frame.reason}`);
  if (completion === "exit") return onCompletion(s, arrivedAt, null);
  return s.finish(
    `${subscribeTag} ended (Exit Success after ${s.result.chunks} chunks) before the completion marker ${completionLabel(completion)}`,
  );
}

/**
 * One frame from the server, decoded and handed to its step.
 * @param {Session} s
 * @param {{ data?: unknown }} event
 */
function onMessage(s, event) {
  const arrivedAt = s.cfg.now();
  const frame = decodeFrame(event.data);
  switch (frame.type) {
    case "bad":
      return s.finish(`bad frame: ${frame.reason}`);
    case "defect":
      return s.finish(`server defect: ${frame.reason}`);
    case "ping":
    case "pong":
      return;
    case "chunk":
      return onChunk(s, frame, event.data, arrivedAt);
    case "exit":
      return onExit(s, frame, arrivedAt);
  }
}

/**
 * Dials the server and wires the socket's events to the steps; the subscribe goes out on open.
 * @param {Session} s
 */
function connect(s) {
  const { WebSocket, token, tokenIn, subscribeTag, subscribePayload, now } = s.cfg;
  const auth = authenticate(s.cfg.url, token, tokenIn, s.cfg.headers);
  const socket = new WebSocket(auth.url, undefined, auth.params);
  s.socket = socket;
  socket.addEventListener("open", () => closeIfDone(socket, s.done));
  socket.addEventListener(
    "open",
    s.guarded(() => {
      s.opened = true;
      s.phase("open");
      s.send(encodeRequest(SUBSCRIBE_ID, subscribeTag, subscribePayload));
      s.sentAt = now();
    }),
  );
  socket.addEventListener("message", (/** @type {{ data?: unknown }} */ event) =>
    s.guarded(() => onMessage(s, event))(),
  );
  socket.addEventListener("error", (/** @type {unknown} */ event) =>
    s.guarded(() => s.finish(`websocket error: ${eventErrorText(event)}`))(),
  );
  socket.addEventListener("close", (/** @type {{ code?: number, reason?: string }} */ event) =>
    s.guarded(() => {
      const how = `${closeCodeText(event)}${event?.reason ? `, ${event.reason}` : ""}`;
      s.finish(`connection closed (${how}) while waiting for ${s.waitingFor()}`);
    })(),
  );
}

/**
 * Runs one subscription session. Never rejects and never hangs: every failure (Defect, failed Exit,
 * close before completion, bad frame, socket error, timeout) resolves with ok:false and a reason.
 *
 * The probe goes out the moment the first chunk arrives, before that chunk's ACK is sent or
 * scheduled, so it is in flight while the ACK is held (for ackDelayMs). With ackDelayMs 0 the ACK
 * follows the probe request immediately and the probe competes with the rest of the catch-up.
 * @param {SessionOptions} options
 * @returns {Promise<SessionResult>}
 */
export function runSession(options) {
  const cfg = sessionSettings(options);
  return new Promise((resolve) => {
    const s = newSession(cfg, resolve);
    s.phase("connect");
    s.schedule(() => s.finish(`timed out after ${cfg.timeoutMs} ms waiting for ${s.waitingFor()}`), cfg.timeoutMs);
    s.guarded(() => connect(s))();
  });
}

/**
 * One unary call on its own connection (used to read server.getConfig before a run).
 * Never rejects: failures resolve with ok:false.
 * @param {ConnectOptions & { tag: string, payload?: unknown }} options
 * @returns {Promise<{ ok: boolean, value: unknown, ms: number | null, error: string | null }>}
 */
export function callUnary(options) {
  const { WebSocket, now, setTimeout, clearTimeout, token, tokenIn, timeoutMs } = connectSettings(options);
  const tag = options.tag;
  return new Promise((resolve) => {
    /** @type {any} */
    let socket = null;
    let done = false;
    let sentAt = -1;
    /** @param {{ ok: boolean, value: unknown, ms: number | null, error: string | null }} r */
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      closeIfOpen(socket);
      resolve(r);
    };
    /** @param {string} error */
    const fail = (error) => finish({ ok: false, value: null, ms: null, error });
    const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms waiting for the ${tag} reply`), timeoutMs);
    try {
      const auth = authenticate(options.url, token, tokenIn, options.headers);
      socket = new WebSocket(auth.url, undefined, auth.params);
      socket.addEventListener("open", () => {
        if (closeIfDone(socket, done)) return;
        socket.send(encodeRequest("1", tag, options.payload ?? {}));
        sentAt = now();
      });
      socket.addEventListener("message", (/** @type {{ data?: unknown }} */ event) => {
        if (done) return;
        const frame = decodeFrame(event.data);
        if (frame.type === "exit" && frame.requestId === "1") {
          if (frame.success) finish({ ok: true, value: frame.value, ms: now() - sentAt, error: null });
          else fail(`${tag} failed: ${frame.reason}`);
        } else if (frame.type === "defect") fail(`server defect: ${frame.reason}`);
        else if (frame.type === "bad") fail(`bad frame: ${frame.reason}`);
      });
      socket.addEventListener("error", (/** @type {unknown} */ event) =>
        fail(`websocket error: ${eventErrorText(event)}`),
      );
      socket.addEventListener("close", (/** @type {{ code?: number }} */ event) =>
        fail(`connection closed (${closeCodeText(event)}) before the ${tag} reply`),
      );
    } catch (e) {
      fail(`client error: ${errorText(e)}`);
    }
  });
}

// readyState numbers: k6 has no WebSocket.OPEN constant at runtime.
const CONNECTING = 0;
const OPEN = 1;

/**
 * Closes the socket only when it is OPEN. In k6, close() on a CONNECTING socket waits for a write
 * loop that starts only after a successful dial, so a dial that then fails hangs `k6 run` forever.
 * A session that ends while still connecting leaves the socket alone: a failed dial ends it, and a
 * dial that succeeds late is closed by closeIfDone on its open event.
 * @param {any} socket
 */
function closeIfOpen(socket) {
  try {
    if (socket && socket.readyState === OPEN) socket.close(1000);
    // Node's ws can abort a pending dial (k6's WebSocket has no terminate), so Node is not left waiting on it.
    else if (socket && socket.readyState === CONNECTING && typeof socket.terminate === "function") socket.terminate();
  } catch {
    // Closing a socket that is already failing may throw; the session is over either way.
  }
}

/**
 * On open: a session that already ended (timed out while connecting) closes the late socket now.
 * @param {any} socket
 * @param {boolean} done
 * @returns {boolean} whether the session had ended
 */
function closeIfDone(socket, done) {
  if (done) closeIfOpen(socket);
  return done;
}

/**
 * True when a stream value is the completion marker the rule names (its `field` holds `value`).
 * @param {unknown} v @param {{ field: string, value: unknown }} rule @returns {boolean}
 */
export function isCompletionMarker(v, rule) {
  return v !== null && typeof v === "object" && /** @type {Record<string, unknown>} */ (v)[rule.field] === rule.value;
}

/** @param {CompletionRule} rule @returns {string} */
export function completionLabel(rule) {
  return rule === "exit" ? "exit" : `${rule.field}=${String(rule.value)}`;
}

/**
 * The close event's code, or why there is none: k6 gives a close event without `code` after a failed
 * dial or when the TCP connection drops without a close frame (Node's ws says 1006 for both).
 * @param {{ code?: number } | undefined} event
 * @returns {string}
 */
function closeCodeText(event) {
  return typeof event?.code === "number"
    ? `code ${event.code}`
    : "no close code: the dial failed or the TCP connection dropped";
}

/**
 * k6's error event carries `.error` as a string; ws's carries `.message` and an Error in `.error`.
 * @param {unknown} event
 * @returns {string}
 */
function eventErrorText(event) {
  if (event && typeof event === "object") {
    const e = /** @type {{ error?: unknown, message?: unknown }} */ (event);
    if (typeof e.message === "string" && e.message) return e.message;
    if (e.error !== undefined) return errorText(e.error);
  }
  return errorText(event);
}
