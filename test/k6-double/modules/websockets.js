// TEST AID, not k6. k6/websockets double on the `ws` package, with k6's surface: browser-like
// events via addEventListener or on*, numeric readyState with no OPEN/CLOSED constants, an error
// event whose `.error` is a string, no subprotocols, params.headers, binaryType "blob" by default.
// Open sockets keep the iteration alive, as in k6. close() while CONNECTING hangs real k6 (it waits
// for a write loop that starts only after a successful dial), so here it ends the run with an error.
import WsSocket from "ws";
import { state, track, untrack } from "./state.js";

export const CLOSE_WHILE_CONNECTING = "close() while CONNECTING would hang k6";
const BINARY_TYPES = ["blob", "arraybuffer"];

const EVENTS = ["open", "message", "error", "close", "ping", "pong"];

export class WebSocket {
  constructor(url, protocols, params) {
    if (protocols !== undefined && protocols !== null)
      throw new Error("k6 double: WebSocket subprotocols are not supported");
    this.url = url;
    this._binaryType = "blob";
    this._listeners = new Map(EVENTS.map((e) => [e, []]));
    for (const e of EVENTS) this[`on${e}`] = null;
    track(this);
    this._ws = new WsSocket(url, { headers: params?.headers ?? {} });
    this._ws.on("open", () => this._emit("open", { type: "open" }));
    this._ws.on("message", (data, isBinary) =>
      this._emit("message", {
        type: "message",
        data: isBinary ? this._binary(data) : data.toString("utf8"),
        timestamp: Date.now(),
      }),
    );
    this._ws.on("error", (err) => this._emit("error", { type: "error", error: String(err?.message ?? err) }));
    this._ws.on("ping", () => this._emit("ping", { type: "ping" }));
    this._ws.on("pong", () => this._emit("pong", { type: "pong" }));
    this._ws.on("close", (code, reason) => {
      untrack(this);
      this._emit("close", { type: "close", code, reason: reason.toString("utf8") });
    });
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
    return this._ws.readyState;
  }

  get bufferedAmount() {
    return this._ws.bufferedAmount;
  }

  addEventListener(event, listener) {
    const list = this._listeners.get(event);
    if (!list) throw new Error(`k6 double: unknown WebSocket event ${JSON.stringify(event)}`);
    list.push(listener);
  }

  send(data) {
    this._ws.send(data);
  }

  ping() {
    this._ws.ping();
  }

  close(code, reason) {
    if (this._ws.readyState === 0) {
      state().fatal(`${CLOSE_WHILE_CONNECTING} (a dial that then fails never lets k6 exit): ${this.url}`);
      this._ws.terminate();
      return;
    }
    this._ws.close(code, reason);
  }

  _emit(event, payload) {
    const handler = this[`on${event}`];
    if (typeof handler === "function") handler.call(this, payload);
    for (const listener of this._listeners.get(event)) listener.call(this, payload);
  }
}
