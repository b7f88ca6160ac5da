// TEST AID, not k6. k6/websockets double on the `ws` package, with k6's surface and k6's behaviour as
// read in grafana/k6 v1.6.0 internal/js/modules/k6/websockets/websockets.go (its line numbers; v2.2.0
// behaves the same, from line 416 on some lines later):
// - browser-like events via addEventListener or on* (the on* handler first: listeners.go:66-72),
//   numeric readyState with no OPEN/CLOSED constants, no subprotocols, params.headers,
//   binaryType "blob" by default;
// - a 60 s handshake timeout (websockets.go:278);
// - send() outside OPEN throws "InvalidStateError" (assertStateOpen, websockets.go:733-739);
// - close() validates the code (1000 or 3000-4999) and reason (<= 123 bytes) (websockets.go:741-766);
//   close() while CONNECTING: k6 sets CLOSING and blocks on the write queue until the write loop
//   starts, i.e. until the dial succeeds (v2.2.0 websockets.go:767-802); then it closes without an
//   open event (connectionConnected, :806-813). A dial that fails never lets k6 go on: here that
//   ends the run with "would hang k6", exit 1. NOT modelled: the block itself (code after close()
//   runs at once here);
// - params: only headers, tags, jar, compression; any other key throws "unknown WebSocket's option"
//   (v2.2.0 params.go:43-83); jar and compression are not modelled (refused), tags are ignored;
// - a WebSocket created in the init context: buildParams reads vu.State(), nil there (v2.2.0
//   websockets.go:119, params.go:28), a Go nil dereference that sobek re-panics (vendor
//   sobek/vm.go:847) and k6's root command turns into "unexpected k6 panic", exit 109 (root.go:190-193);
// - a failed dial: an error event whose .error is the dial error's text ("websocket: bad handshake"
//   for a refused upgrade such as a 401; "dial tcp HOST:PORT: connect: connection refused"), then a
//   close event WITHOUT `code` (websockets.go:331-336, 801-818, 878-891: code only when non-zero);
// - a TCP drop: no error event, a close event without `code` (readPump, websockets.go:488-525: a
//   non-close read error is not "unexpected" and carries no code); a server close other than 1000
//   or 1001: an error event "websocket: close CODE (...): REASON", then a close with the code;
// - a listener that throws ends its iteration with that error (the event loop returns it); after
//   an open or message listener throws, the socket is closed and the error and close listeners run
//   (websockets.go:463-468, 843-848).
// Open sockets keep the iteration alive, as in k6.

import { Buffer } from "node:buffer";
import WsSocket from "ws";
import { current, inInit, K6Panic, state, track, untrack } from "./state.js";

export const CLOSE_WHILE_CONNECTING = "close() while CONNECTING would hang k6";
const PARAMS = ["headers", "tags", "jar", "compression"];
const BINARY_TYPES = ["blob", "arraybuffer"];
const EVENTS = ["open", "message", "error", "close", "ping", "pong"];
const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;
const HANDSHAKE_TIMEOUT_MS = 60_000;

// gorilla/websocket CloseError.Error() (vendor/github.com/gorilla/websocket/conn.go:113-147).
const CLOSE_NAMES = {
  1000: "normal",
  1001: "going away",
  1002: "protocol error",
  1003: "unsupported data",
  1005: "no status",
  1006: "abnormal closure",
  1007: "invalid payload data",
  1008: "policy violation",
  1009: "message too big",
  1010: "mandatory extension missing",
  1011: "internal server error",
  1015: "TLS handshake error",
};

function closeErrorText(code, reason) {
  const name = CLOSE_NAMES[code] ? ` (${CLOSE_NAMES[code]})` : "";
  return `websocket: close ${code}${name}${reason ? `: ${reason}` : ""}`;
}

/** Checks params as buildParams does (params.go:43-83); the double models headers only. */
function checkParams(params) {
  if (params === undefined || params === null) return;
  for (const key of Object.keys(params)) {
    if (!PARAMS.includes(key)) {
      throw new Error(`unknown WebSocket's option ${key} (k6 accepts ${PARAMS.join(", ")}: params.go:82)`);
    }
    if (key === "jar" || key === "compression") throw new Error(`k6 double: WebSocket option ${key} is not modelled`);
  }
}

/** The text k6 (gorilla's dialer) gives for a failed dial, from ws's error. */
function dialErrorText(err, url) {
  const message = String(err?.message ?? err);
  if (/Unexpected server response/.test(message)) return "websocket: bad handshake";
  const u = new URL(url);
  const hostPort = `${u.hostname}:${u.port || (u.protocol === "wss:" ? 443 : 80)}`;
  if (err?.code === "ECONNREFUSED") return `dial tcp ${hostPort}: connect: connection refused`;
  if (err?.code === "ECONNRESET") return `read tcp ${hostPort}: read: connection reset by peer`;
  if (/handshake has timed out/.test(message)) return `dial tcp ${hostPort}: i/o timeout`;
  return message;
}

export class WebSocket {
  constructor(url, protocols, params) {
    if (protocols !== undefined && protocols !== null)
      throw new Error("k6 double: WebSocket subprotocols are not supported");
    if (inInit()) {
      throw new K6Panic(
        "a WebSocket created in the init context: k6 has no VU state there (runtime error: invalid memory address or nil pointer dereference)",
      );
    }
    checkParams(params);
    this.url = url;
    this._binaryType = "blob";
    this._state = CONNECTING;
    this._closeCode = 0;
    this._listeners = new Map(EVENTS.map((e) => [e, []]));
    this._ctx = current();
    for (const e of EVENTS) this[`on${e}`] = null;
    track(this);
    this._ws = new WsSocket(url, { headers: params?.headers ?? {}, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
    let dialError = null;
    this._ws.on("open", () => {
      // close() while CONNECTING: k6's blocked close frame goes out now, with no open event.
      if (this._closeBeforeOpen) {
        this._closeBeforeOpen = false;
        return this._ws.close(this._closeCode, this._closeReason);
      }
      if (this._state !== CONNECTING) return;
      this._state = OPEN;
      this._emit("open", { type: "open" }, true);
    });
    this._ws.on("message", (data, isBinary) =>
      this._emit(
        "message",
        { type: "message", data: isBinary ? this._binary(data) : data.toString("utf8"), timestamp: Date.now() },
        true,
      ),
    );
    this._ws.on("error", (err) => {
      if (this._state === CONNECTING) dialError = dialErrorText(err, url);
      else this._pendingError = String(err?.message ?? err);
    });
    this._ws.on("ping", () => this._emit("ping", { type: "ping" }));
    this._ws.on("pong", () => this._emit("pong", { type: "pong" }));
    this._ws.on("close", (code, reasonBuffer) => {
      const reason = reasonBuffer.toString("utf8");
      if (this._state === CLOSED) return this._release();
      const dialed = this._state !== CONNECTING && !(this._state === CLOSING && this._closeBeforeOpen);
      if (!dialed && this._state === CLOSING) {
        // k6 stays blocked in close() on a dial that failed (its write loop never starts).
        state().fatal(`${CLOSE_WHILE_CONNECTING}: the dial to ${url} failed while close() waited for it`);
        return this._release();
      }
      this._state = CLOSED;
      if (!dialed) {
        // A failed dial: the error, then a close without a code.
        this._emit("error", { type: "error", error: dialError ?? "websocket: dial failed" });
        this._emit("close", { type: "close", reason: "" });
      } else if (code === 1006) {
        // The TCP connection ended without a close frame: no error, no code.
        this._emit("close", { type: "close", reason: "" });
      } else {
        if (code !== 1000 && code !== 1001) {
          this._emit("error", { type: "error", error: this._pendingError ?? closeErrorText(code, reason) });
        }
        this._emit("close", { type: "close", code, reason });
      }
      this._release();
    });
  }

  _release() {
    untrack(this, this._ctx);
  }

  get binaryType() {
    return this._binaryType;
  }

  set binaryType(value) {
    if (!BINARY_TYPES.includes(value))
      throw new Error(`k6 double: binaryType must be one of ${BINARY_TYPES.join(", ")}`);
    this._binaryType = value;
  }

  _binary(buffer) {
    if (this._binaryType === "blob") return new Blob([buffer]);
    return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  }

  get readyState() {
    return this._state;
  }

  get bufferedAmount() {
    return this._ws.bufferedAmount;
  }

  addEventListener(event, listener) {
    const list = this._listeners.get(event);
    if (!list) throw new Error(`k6 double: unknown WebSocket event ${JSON.stringify(event)}`);
    if (typeof listener !== "function") throw new Error(`handler for event type "${event}" isn't a callable function`);
    list.push(listener);
  }

  send(data) {
    if (this._state !== OPEN) throw new Error("InvalidStateError");
    this._ws.send(data);
  }

  ping() {
    if (this._state !== OPEN) throw new Error("InvalidStateError");
    this._ws.ping();
  }

  close(code, reason = "") {
    if (this._state === CLOSED || this._state === CLOSING) return;
    if (code !== undefined && code !== 0 && !(code === 1000 || (code >= 3000 && code <= 4999))) {
      throw new Error(
        `InvalidAccessError: Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${code} is neither`,
      );
    }
    if (Buffer.byteLength(String(reason)) > 123) {
      throw new Error(
        "SyntaxError: Failed to execute 'close' on 'WebSocket': The message must not be greater than 123 bytes",
      );
    }
    if (this._state === CONNECTING) {
      // k6 blocks here until the dial ends; the open handler above sends the close.
      this._state = CLOSING;
      this._closeBeforeOpen = true;
      this._closeCode = code || 1000;
      this._closeReason = reason;
      return;
    }
    this._state = CLOSING;
    this._ws.close(code || 1000, reason);
  }

  /**
   * Calls the event's listeners. A throw ends the iteration (k6's event loop returns the error);
   * after an open or message listener throws, the socket closes and error and close listeners run.
   */
  _emit(event, payload, closesOnThrow = false) {
    const handler = this[`on${event}`];
    const listeners = [...(typeof handler === "function" ? [handler] : []), ...this._listeners.get(event)];
    for (const listener of listeners) {
      try {
        listener.call(this, payload);
      } catch (e) {
        if (closesOnThrow && this._state !== CLOSED) {
          this._state = CLOSED;
          this._ws.terminate();
          this._quietEmit("error", { type: "error", error: String(e?.message ?? e) });
          this._quietEmit("close", { type: "close", reason: "" });
        }
        this._ctx?.fail(e);
        return;
      }
    }
  }

  _quietEmit(event, payload) {
    const handler = this[`on${event}`];
    for (const listener of [...(typeof handler === "function" ? [handler] : []), ...this._listeners.get(event)]) {
      try {
        listener.call(this, payload);
      } catch {
        // the iteration already failed with the first error
      }
    }
  }
}
