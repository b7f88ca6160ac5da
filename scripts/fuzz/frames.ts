// The fuzz frame generator: pure and seeded. Given a PRNG it produces "actions": short scripts of
// frames (and waits) that one fuzz connection sends to an Effect RPC WebSocket server. The same seed
// gives the same frames byte for byte, so a failing run can be replayed. No sockets, clocks or I/O here;
// scripts/fuzz/run.ts executes the steps.
import { randomFloats } from "../../common/prng.js";
// The unary probe tag doubles as the fuzzer's sentinel: any healthy server answers it.
import { PROBE_TAG as CONFIG_TAG, SUBSCRIBE_TAG } from "../../scenarios/lib/protocol.js";

/** A uniform PRNG over [0, 1). */
export type Rng = () => number;

/** What a frame-level fuzz action exercises. Each kind is one family of malformed/adversarial traffic. */
export const FRAME_KINDS = [
  "invalid-json",
  "invalid-utf8",
  "wrong-type",
  "bad-id",
  "unknown-tag",
  "invalid-payload",
  "oversized",
  "binary",
  "deep-json",
  "ack-unknown",
  "ack-finished",
  "duplicate-id",
  "flood",
  "extra-acks",
  "interrupt-stream",
  "abrupt-close",
] as const;
export type FrameKind = (typeof FRAME_KINDS)[number];

/**
 * Relative frequency of each kind. Oversized frames cost > 1 MiB each on the wire, floods and deep
 * JSON are heavy for the server: they are rarer so a bounded run still reaches every other kind often.
 */
export const DEFAULT_WEIGHTS: Readonly<Record<FrameKind, number>> = {
  "invalid-json": 10,
  "invalid-utf8": 4,
  "wrong-type": 12,
  "bad-id": 8,
  "unknown-tag": 8,
  "invalid-payload": 10,
  oversized: 0.5,
  binary: 6,
  "deep-json": 2,
  "ack-unknown": 6,
  "ack-finished": 5,
  "duplicate-id": 5,
  flood: 4,
  "extra-acks": 4,
  "interrupt-stream": 4,
  "abrupt-close": 2,
};

/** One WebSocket message. `binary: false` with a Uint8Array sends those exact bytes as a text frame. */
export interface WireFrame {
  readonly binary: boolean;
  readonly data: string | Uint8Array;
}

/** A step of an action; the runner executes them in order. */
export type FuzzStep =
  | { readonly op: "send"; readonly frame: WireFrame }
  /** Wait until this request's Exit arrives (or the socket closes, or the runner's step timeout). */
  | { readonly op: "await-exit"; readonly requestId: string }
  /** Wait until this request's first Chunk arrives (same bounds). */
  | { readonly op: "await-chunk"; readonly requestId: string }
  /** Destroy the TCP socket now, without a close handshake. */
  | { readonly op: "terminate" };

export interface FuzzAction {
  readonly kind: FrameKind;
  /** Which variant of the kind, for the outcome table and for replaying one case by hand. */
  readonly variant: string;
  readonly steps: readonly FuzzStep[];
}

/** The bundled server's command tag (the fuzzer also sends the client's two tags). */
export const DISPATCH_TAG = "orchestration.dispatchCommand";

/** The server refuses incoming frames over this many bytes (ws maxPayload; the socket closes with 1009). */
export const MAX_FRAME_BYTES = 1024 * 1024;

export function randInt(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new RangeError("pick from an empty list");
  return item;
}

/** Picks a key with probability proportional to its weight (weights >= 0, at least one > 0). */
export function pickWeighted<K extends string>(rng: Rng, weights: Readonly<Record<K, number>>): K {
  const entries = Object.entries(weights) as [K, number][];
  const total = entries.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
  if (!(total > 0)) throw new RangeError("pickWeighted needs at least one positive weight");
  let x = rng() * total;
  for (const [key, w] of entries) {
    x -= Math.max(0, w);
    if (x < 0) return key;
  }
  return (entries.findLast(([, w]) => w > 0) as [K, number])[0];
}

const text = (data: string): WireFrame => ({ binary: false, data });
const send = (frame: WireFrame): FuzzStep => ({ op: "send", frame });
const sendJson = (value: unknown): FuzzStep => send(text(JSON.stringify(value)));

function request(id: string, tag: string, payload: unknown): Record<string, unknown> {
  return { _tag: "Request", id, tag, payload, headers: [] };
}

function randomAscii(rng: Rng, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(randInt(rng, 0x20, 0x7e));
  return s;
}

function randomBytes(rng: Rng, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(rng() * 256);
  return out;
}

/** Values of every JSON type (and a few JS-hostile shapes) to put where a field expects another type. */
const WRONG_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  "",
  "x",
  "null",
  [],
  [1, 2, 3],
  {},
  { _tag: "Request" },
  { __proto__: null, constructor: { prototype: {} } },
  "9".repeat(400),
];

/** The JSON type of a value: null, boolean, number, string, array or object. */
export function jsonType(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/** Ids that are not the decimal-string ids Effect RPC expects (the Effect 3 server closes the socket silently on a non-numeric string id). */
const BAD_IDS: readonly unknown[] = [
  "-1",
  "-0",
  "1e3",
  "0x10",
  "1.5",
  " 1",
  "1 ",
  "",
  "abc",
  "NaN",
  "Infinity",
  "99999999999999999999999999999999999999999999",
  "9".repeat(5000),
  "00000000000000000000001",
  "\ud800",
  7,
  -5,
  1e21,
  Number.MAX_SAFE_INTEGER + 2,
  0.1,
];

const UNKNOWN_TAGS: readonly string[] = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "orchestration.subscribeShell ",
  "ORCHESTRATION.SUBSCRIBESHELL",
  "orchestration",
  "orchestration.",
  "server.getConfig.extra",
  "",
  "a".repeat(10_000),
  "💥",
];

/** Generates actions for one connection. Owns that connection's id counter so fresh ids never collide. */
export class FrameFuzzer {
  readonly rng: Rng;
  private nextId = 1;
  private readonly weights: Readonly<Record<FrameKind, number>>;

  constructor(seed: number, weights: Readonly<Record<FrameKind, number>> = DEFAULT_WEIGHTS) {
    this.rng = randomFloats(seed);
    this.weights = weights;
  }

  /** A fresh decimal-string id, unique on this connection. */
  freshId(): string {
    return String(this.nextId++);
  }

  /** The next action of a weighted-random kind. */
  next(): FuzzAction {
    return this.action(pickWeighted(this.rng, this.weights));
  }

  /** The next action of the given kind. */
  action(kind: FrameKind): FuzzAction {
    const make = GENERATORS[kind];
    return { kind, ...make(this) };
  }
}

type Generated = { variant: string; steps: FuzzStep[] };
type Generator = (f: FrameFuzzer) => Generated;

function validSubscribePayload(rng: Rng): Record<string, unknown> {
  return rng() < 0.5
    ? { requestCompletionMarker: true }
    : { afterSequence: randInt(rng, 0, 50), requestCompletionMarker: true };
}

const GENERATORS: Record<FrameKind, Generator> = {
  "invalid-json": (f) => {
    const valid = JSON.stringify(request(f.freshId(), CONFIG_TAG, {}));
    const variants: [string, () => string][] = [
      ["truncated", () => valid.slice(0, randInt(f.rng, 1, valid.length - 1))],
      ["garbage", () => randomAscii(f.rng, randInt(f.rng, 1, 200))],
      ["trailing-comma", () => valid.replace("}", ",}")],
      ["single-quotes", () => valid.replaceAll('"', "'")],
      ["nan-literal", () => '{"_tag":"Request","id":"1","tag":"server.getConfig","payload":NaN,"headers":[]}'],
      ["empty", () => ""],
      ["whitespace", () => " \n\t "],
      ["two-objects", () => `${valid}${valid}`],
      ["comment", () => `/* hi */${valid}`],
      ["unterminated-string", () => '{"_tag":"Request","id":"1'],
    ];
    const [variant, build] = pick(f.rng, variants);
    return { variant, steps: [send(text(build()))] };
  },

  "invalid-utf8": (f) => {
    // Bytes that are not UTF-8, sent as a *text* frame: the WebSocket layer must reject them (1007).
    const prefix = new TextEncoder().encode('{"_tag":"Request","id":"1","tag":"');
    const bad = pick(f.rng, [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]);
    const bytes = new Uint8Array([...prefix, ...bad, 0x22, 0x7d]);
    return {
      variant: `bytes-${bad.map((b) => b.toString(16)).join("")}`,
      steps: [send({ binary: false, data: bytes })],
    };
  },

  "wrong-type": (f) => {
    const id = f.freshId();
    const base: Record<string, unknown> = pick(f.rng, [
      request(id, CONFIG_TAG, {}),
      request(id, SUBSCRIBE_TAG, { requestCompletionMarker: true }),
      { _tag: "Ack", requestId: id },
      { _tag: "Interrupt", requestId: id },
      { _tag: "Ping" },
    ]);
    const whole = f.rng() < 0.1;
    if (whole) {
      const value = pick(
        f.rng,
        WRONG_VALUES.filter((v) => jsonType(v) !== "object"),
      );
      return { variant: "message-not-object", steps: [send(text(JSON.stringify(value) ?? "null"))] };
    }
    const fields = Object.keys(base);
    const field = f.rng() < 0.15 ? "_extra" : pick(f.rng, fields);
    // A value whose JSON type differs from the field's, so the message is really mistyped.
    const value = pick(
      f.rng,
      WRONG_VALUES.filter((v) => field === "_extra" || jsonType(v) !== jsonType(base[field])),
    );
    const msg = { ...base, [field]: value };
    if (f.rng() < 0.1) delete msg[pick(f.rng, fields)];
    // A request that decodes may open a stream: interrupt it so the action leaves nothing running.
    const steps = [sendJson(msg)];
    if (base._tag === "Request") steps.push(sendJson({ _tag: "Interrupt", requestId: id }));
    return { variant: `${String(base._tag)}.${field}`, steps };
  },

  "bad-id": (f) => {
    const id = pick(f.rng, BAD_IDS);
    const tag = pick(f.rng, ["Request", "Ack", "Interrupt"] as const);
    const msg = tag === "Request" ? request(id as string, CONFIG_TAG, {}) : { _tag: tag, requestId: id };
    return { variant: `${tag}:${typeof id}`, steps: [sendJson(msg)] };
  },

  "unknown-tag": (f) => {
    if (f.rng() < 0.4) {
      // Unknown message types, including server-to-client ones sent the wrong way.
      const _tag = pick(f.rng, ["Foo", "Exit", "Chunk", "Defect", "Pong", "ClientEnd", "", "request"]);
      const id = f.freshId();
      return {
        variant: `message:${_tag || "(empty)"}`,
        steps: [sendJson({ _tag, requestId: id, id, values: [1], exit: { _tag: "Success", value: 1 } })],
      };
    }
    const tag = pick(f.rng, UNKNOWN_TAGS);
    return { variant: "request-tag", steps: [sendJson(request(f.freshId(), tag, {}))] };
  },

  "invalid-payload": (f) => {
    const id = f.freshId();
    const cases: [string, string, unknown][] = [
      ["after-negative", SUBSCRIBE_TAG, { afterSequence: -1 }],
      ["after-fraction", SUBSCRIBE_TAG, { afterSequence: 1.5 }],
      ["after-string", SUBSCRIBE_TAG, { afterSequence: "3" }],
      ["after-huge", SUBSCRIBE_TAG, { afterSequence: 1e300 }],
      ["after-beyond-latest", SUBSCRIBE_TAG, { afterSequence: Number.MAX_SAFE_INTEGER }],
      ["after-null", SUBSCRIBE_TAG, { afterSequence: null }],
      ["marker-string", SUBSCRIBE_TAG, { requestCompletionMarker: "yes" }],
      ["payload-array", SUBSCRIBE_TAG, []],
      ["payload-null", SUBSCRIBE_TAG, null],
      ["proto-pollution", SUBSCRIBE_TAG, JSON.parse('{"__proto__":{"polluted":true},"afterSequence":0}')],
      ["config-extra", CONFIG_TAG, { afterSequence: 1, x: "y".repeat(1000) }],
      ["dispatch-missing-fields", DISPATCH_TAG, {}],
      ["dispatch-wrong-type", DISPATCH_TAG, { type: "project.delete", projectId: "p1", title: "x" }],
      ["dispatch-title-number", DISPATCH_TAG, { type: "project.update", projectId: "p1", title: 5 }],
      ["dispatch-projectid-object", DISPATCH_TAG, { type: "project.update", projectId: {}, title: "x" }],
      ["dispatch-unknown-project", DISPATCH_TAG, { type: "project.update", projectId: `no-such-${id}`, title: "x" }],
    ];
    const [variant, tag, payload] = pick(f.rng, cases);
    // If the server accepts it after all (e.g. a subscription), the Interrupt ends it.
    return { variant, steps: [sendJson(request(id, tag, payload)), sendJson({ _tag: "Interrupt", requestId: id })] };
  },

  oversized: (f) => {
    const size = MAX_FRAME_BYTES + randInt(f.rng, 1, 64 * 1024);
    const binary = f.rng() < 0.3;
    const head = `{"_tag":"Request","id":"${f.freshId()}","tag":"${CONFIG_TAG}","payload":{"pad":"`;
    const tail = '"},"headers":[]}';
    const body = head + "x".repeat(size - head.length - tail.length) + tail;
    return {
      variant: binary ? "binary" : "text",
      steps: [send(binary ? { binary: true, data: new TextEncoder().encode(body) } : text(body))],
    };
  },

  binary: (f) => {
    if (f.rng() < 0.5) {
      // A well-formed request in a binary frame: the server may decode it or refuse it, never crash.
      const id = f.freshId();
      const body = new TextEncoder().encode(JSON.stringify(request(id, CONFIG_TAG, {})));
      return { variant: "json-in-binary", steps: [send({ binary: true, data: body })] };
    }
    return {
      variant: "random-bytes",
      steps: [send({ binary: true, data: randomBytes(f.rng, randInt(f.rng, 0, 512)) })],
    };
  },

  "deep-json": (f) => {
    // Deep nesting breaks recursive encoders/decoders (stack overflow); keep under the 1 MiB limit.
    const depth = pick(f.rng, [1_000, 10_000, 100_000, 150_000]);
    const open = f.rng() < 0.5 ? "[" : '{"a":';
    const close = open === "[" ? "]" : "}";
    const nested = open.repeat(depth) + (open === "[" ? "" : "0") + close.repeat(depth);
    const where = pick(f.rng, ["top", "payload", "headers"] as const);
    const id = f.freshId();
    const body =
      where === "top"
        ? nested
        : where === "payload"
          ? `{"_tag":"Request","id":"${id}","tag":"${SUBSCRIBE_TAG}","payload":${nested},"headers":[]}`
          : `{"_tag":"Request","id":"${id}","tag":"${CONFIG_TAG}","payload":{},"headers":${open === "[" ? nested : `[${nested}]`}}`;
    return { variant: `${where}-${depth}`, steps: [send(text(body))] };
  },

  "ack-unknown": (f) => {
    const id = f.rng() < 0.5 ? String(randInt(f.rng, 100_000, 1_000_000_000)) : "0";
    const tag = pick(f.rng, ["Ack", "Interrupt"] as const);
    return { variant: tag, steps: [sendJson({ _tag: tag, requestId: id })] };
  },

  "ack-finished": (f) => {
    const id = f.freshId();
    return {
      variant: "after-exit",
      steps: [
        sendJson(request(id, CONFIG_TAG, {})),
        { op: "await-exit", requestId: id },
        sendJson({ _tag: "Ack", requestId: id }),
        sendJson({ _tag: "Interrupt", requestId: id }),
        sendJson({ _tag: "Ack", requestId: id }),
      ],
    };
  },

  "duplicate-id": (f) => {
    const id = f.freshId();
    const tag = pick(f.rng, [CONFIG_TAG, SUBSCRIBE_TAG]);
    const payload = tag === SUBSCRIBE_TAG ? validSubscribePayload(f.rng) : {};
    const copies = randInt(f.rng, 2, 5);
    const steps: FuzzStep[] = [];
    for (let i = 0; i < copies; i++) steps.push(sendJson(request(id, tag, payload)));
    steps.push(sendJson({ _tag: "Interrupt", requestId: id }));
    return { variant: `${tag}x${copies}`, steps };
  },

  flood: (f) => {
    const n = randInt(f.rng, 20, 200);
    const variant = pick(f.rng, ["config", "subscribe-no-ack", "ping", "mixed"] as const);
    const steps: FuzzStep[] = [];
    const opened: string[] = [];
    for (let i = 0; i < n; i++) {
      const which = variant === "mixed" ? pick(f.rng, ["config", "subscribe-no-ack", "ping"] as const) : variant;
      if (which === "ping") {
        steps.push(sendJson({ _tag: "Ping" }));
        continue;
      }
      const id = f.freshId();
      if (which === "config") steps.push(sendJson(request(id, CONFIG_TAG, {})));
      else {
        steps.push(sendJson(request(id, SUBSCRIBE_TAG, validSubscribePayload(f.rng))));
        opened.push(id);
      }
    }
    // Stalled subscriptions (no Ack) are interrupted, half of the time; otherwise the connection's
    // eventual close must free them.
    if (f.rng() < 0.5) for (const id of opened) steps.push(sendJson({ _tag: "Interrupt", requestId: id }));
    return { variant: `${variant}x${n}`, steps };
  },

  "extra-acks": (f) => {
    const id = f.freshId();
    const acks = randInt(f.rng, 2, 20);
    const steps: FuzzStep[] = [
      sendJson(request(id, SUBSCRIBE_TAG, validSubscribePayload(f.rng))),
      { op: "await-chunk", requestId: id },
    ];
    for (let i = 0; i < acks; i++) steps.push(sendJson({ _tag: "Ack", requestId: id }));
    steps.push(sendJson({ _tag: "Interrupt", requestId: id }));
    return { variant: `acks-${acks}`, steps };
  },

  "interrupt-stream": (f) => {
    const id = f.freshId();
    const steps: FuzzStep[] = [sendJson(request(id, SUBSCRIBE_TAG, validSubscribePayload(f.rng)))];
    const when = pick(f.rng, ["immediately", "after-chunk", "twice"] as const);
    if (when !== "immediately") steps.push({ op: "await-chunk", requestId: id });
    steps.push(sendJson({ _tag: "Interrupt", requestId: id }));
    if (when === "twice") steps.push(sendJson({ _tag: "Interrupt", requestId: id }));
    steps.push({ op: "await-exit", requestId: id });
    return { variant: when, steps };
  },

  "abrupt-close": (f) => {
    // Subscribe to a snapshot (the biggest chunk) and drop the TCP connection while it streams.
    const id = f.freshId();
    const when = pick(f.rng, ["after-request", "after-first-chunk"] as const);
    const steps: FuzzStep[] = [sendJson(request(id, SUBSCRIBE_TAG, { requestCompletionMarker: true }))];
    if (when === "after-first-chunk") steps.push({ op: "await-chunk", requestId: id });
    steps.push({ op: "terminate" });
    return { variant: when, steps };
  },
};

/** Number of frames an action sends. */
export function framesIn(action: FuzzAction): number {
  return action.steps.reduce((n, s) => n + (s.op === "send" ? 1 : 0), 0);
}

/** UTF-8 byte length of a frame's payload. */
export function frameBytes(frame: WireFrame): number {
  return typeof frame.data === "string" ? Buffer.byteLength(frame.data, "utf8") : frame.data.byteLength;
}

/** Derives the seed of connection `index` from the run seed, so each connection has its own stream. */
export function connectionSeed(runSeed: number, index: number): number {
  return (Math.imul(runSeed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca77)) >>> 0;
}
