// Effect RPC JSON framing: encode client messages, decode server frames of either wire dialect
// (Effect 3: cause tree, ids echoed normalised; Effect 4: flat cause array, ids echoed as sent,
// optional `headers`). Pure: no Node or k6 imports, so k6 and the harness share it.

/**
 * A server frame after decoding, independent of dialect.
 * @typedef {{ type: "chunk", requestId: string, values: unknown[] }
 *   | { type: "exit", requestId: string, success: true, value: unknown }
 *   | { type: "exit", requestId: string, success: false, reason: string }
 *   | { type: "defect", reason: string }
 *   | { type: "pong" }
 *   | { type: "ping" }
 *   | { type: "bad", reason: string }} ServerFrame
 */

const MAX_REASON_CHARS = 300;

/**
 * A Request frame. Ids are decimal strings and `headers` is always an array: the Effect 3 server
 * silently closes the socket for a non-numeric id or a Request without `headers`.
 * @param {string} id
 * @param {string} tag
 * @param {unknown} payload
 * @returns {string}
 */
export function encodeRequest(id, tag, payload) {
  return JSON.stringify({ _tag: "Request", id, tag, payload, headers: [] });
}

/** @param {string} requestId @returns {string} */
export function encodeAck(requestId) {
  return JSON.stringify({ _tag: "Ack", requestId });
}

/**
 * Normalises a request id for comparison: Effect 3 echoes ids as normalised bigint strings,
 * Effect 4 echoes them as sent (string or number). "007", 7 and "7" all compare equal.
 * @param {unknown} id
 * @returns {string}
 */
export function normaliseId(id) {
  const s = typeof id === "number" || typeof id === "bigint" ? String(id) : typeof id === "string" ? id : "";
  if (/^[0-9]+$/.test(s)) {
    const trimmed = s.replace(/^0+/, "");
    return trimmed === "" ? "0" : trimmed;
  }
  return s;
}

/**
 * Decodes one text frame. Never throws: anything unrecognisable is `{type:"bad"}` with a reason.
 * @param {unknown} text
 * @returns {ServerFrame}
 */
export function decodeFrame(text) {
  if (typeof text !== "string") return { type: "bad", reason: `binary frame (${describe(text)}), expected JSON text` };
  /** @type {unknown} */
  let msg;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return { type: "bad", reason: `frame is not JSON (${errorText(e)}): ${clip(text)}` };
  }
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
    return { type: "bad", reason: `frame is not a JSON object: ${clip(text)}` };
  }
  const m = /** @type {Record<string, unknown>} */ (msg);
  switch (m._tag) {
    case "Chunk":
      if (!Array.isArray(m.values)) return { type: "bad", reason: `Chunk without a values array: ${clip(text)}` };
      if (!isId(m.requestId)) return { type: "bad", reason: `Chunk without a requestId: ${clip(text)}` };
      return { type: "chunk", requestId: normaliseId(m.requestId), values: m.values };
    case "Exit":
      return decodeExit(m, text);
    case "Defect":
      return { type: "defect", reason: clip(valueText(m.defect)) };
    case "Pong":
      return { type: "pong" };
    case "Ping":
      return { type: "ping" };
    case "ClientProtocolError":
      return { type: "defect", reason: clip(JSON.stringify(m.error ?? m)) };
    default:
      return { type: "bad", reason: `unexpected frame _tag ${JSON.stringify(m._tag)}: ${clip(text)}` };
  }
}

/**
 * @param {Record<string, unknown>} m
 * @param {string} text
 * @returns {ServerFrame}
 */
function decodeExit(m, text) {
  if (!isId(m.requestId)) return { type: "bad", reason: `Exit without a requestId: ${clip(text)}` };
  const requestId = normaliseId(m.requestId);
  const exit = /** @type {Record<string, unknown> | null} */ (m.exit && typeof m.exit === "object" ? m.exit : null);
  if (exit?._tag === "Success") return { type: "exit", requestId, success: true, value: exit.value ?? null };
  if (exit?._tag === "Failure") return { type: "exit", requestId, success: false, reason: causeText(exit.cause) };
  return { type: "bad", reason: `Exit with an unknown exit shape: ${clip(text)}` };
}

/**
 * A readable one-line description of a failure cause in either dialect: Effect 3's tree
 * (Fail/Die/Interrupt/Sequential/Parallel/Empty) or Effect 4's flat array of reasons.
 * @param {unknown} cause
 * @returns {string}
 */
export function causeText(cause) {
  /** @type {string[]} */
  const parts = [];
  /** @param {unknown} c */
  const walk = (c) => {
    if (Array.isArray(c)) {
      for (const x of c) walk(x);
      return;
    }
    if (!c || typeof c !== "object") return;
    const r = /** @type {Record<string, unknown>} */ (c);
    switch (r._tag) {
      case "Fail":
        parts.push(`Fail: ${valueText("failure" in r ? r.failure : r.error)}`);
        return;
      case "Die":
        parts.push(`Die: ${valueText(r.defect)}`);
        return;
      case "Interrupt":
        parts.push("Interrupt");
        return;
      case "Sequential":
      case "Parallel":
        walk(r.left);
        walk(r.right);
        return;
      case "Empty":
        return;
      default:
        parts.push(valueText(r));
    }
  };
  walk(cause);
  // Effect 3 repeats the same Interrupt across a Sequential tree; say each thing once.
  const unique = [...new Set(parts)];
  return clip(unique.length > 0 ? unique.join("; ") : "failure with an empty cause");
}

/** @param {unknown} v @returns {string} */
function valueText(v) {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (/** @type {{message?: unknown}} */ (v).message) === "string") {
    const o = /** @type {{message: string, _tag?: unknown, name?: unknown}} */ (v);
    const kind = typeof o._tag === "string" ? o._tag : typeof o.name === "string" ? o.name : null;
    return kind ? `${kind}: ${o.message}` : o.message;
  }
  return JSON.stringify(v) ?? String(v);
}

/** @param {unknown} id @returns {boolean} */
function isId(id) {
  return typeof id === "string" || typeof id === "number";
}

/** @param {unknown} v @returns {string} */
function describe(v) {
  return v === null ? "null" : typeof v === "object" ? (v.constructor?.name ?? "object") : typeof v;
}

/** @param {unknown} e @returns {string} */
export function errorText(e) {
  if (typeof e === "string") return e;
  if (e && typeof e === "object" && "message" in e && typeof e.message === "string") return e.message;
  return String(e);
}

/** @param {string} s @returns {string} */
export function clip(s) {
  return s.length > MAX_REASON_CHARS ? `${s.slice(0, MAX_REASON_CHARS)}… (${s.length} chars)` : s;
}

/**
 * UTF-8 byte length of a string, by hand: k6 has no Buffer. Lone surrogates count 3 bytes, as
 * an encoder replacing them with U+FFFD would write.
 * @param {string} s
 * @returns {number}
 */
export function utf8ByteLength(s) {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
