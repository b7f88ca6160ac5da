// The fuzz frame generator is pure and seeded: these tests pin reproducibility and that each kind
// really produces the malformed traffic its name promises.
import { describe, expect, it } from "vitest";
import { randomFloats } from "../../common/prng.js";
import {
  DEFAULT_WEIGHTS,
  FRAME_KINDS,
  FrameFuzzer,
  type FrameKind,
  type FuzzAction,
  frameBytes,
  framesIn,
  jsonType,
  MAX_FRAME_BYTES,
  pickWeighted,
  type WireFrame,
} from "../../scripts/fuzz/frames.js";

function sentFrames(action: FuzzAction): WireFrame[] {
  return action.steps.flatMap((s) => (s.op === "send" ? [s.frame] : []));
}

function digest(actions: FuzzAction[]): string {
  return actions
    .map((a) =>
      [
        a.kind,
        a.variant,
        ...a.steps.map((s) =>
          s.op === "send"
            ? `${s.frame.binary ? "b" : "t"}:${typeof s.frame.data === "string" ? s.frame.data : Buffer.from(s.frame.data).toString("hex")}`
            : JSON.stringify(s),
        ),
      ].join("|"),
    )
    .join("\n");
}

function textOf(frame: WireFrame): string {
  return typeof frame.data === "string" ? frame.data : Buffer.from(frame.data).toString("utf8");
}

function many(kind: FrameKind, n: number, seed = 7): FuzzAction[] {
  const f = new FrameFuzzer(seed);
  return Array.from({ length: n }, () => f.action(kind));
}

describe("FrameFuzzer", () => {
  it("gives the same frames for the same seed and different frames for another seed", () => {
    const run = (seed: number) => {
      const f = new FrameFuzzer(seed);
      return digest(Array.from({ length: 1500 }, () => f.next()));
    };
    expect(run(42)).toBe(run(42));
    expect(run(42)).not.toBe(run(43));
  });

  it("reaches every kind with the default weights", () => {
    const f = new FrameFuzzer(1);
    const seen = new Set<FrameKind>();
    for (let i = 0; i < 5000; i++) seen.add(f.next().kind);
    expect([...seen].sort()).toEqual([...FRAME_KINDS].sort());
  });

  it("keeps every frame under the 1 MiB limit except the oversized kind, which is always over it", () => {
    const f = new FrameFuzzer(3);
    for (let i = 0; i < 3000; i++) {
      const a = f.next();
      for (const frame of sentFrames(a)) {
        if (a.kind === "oversized") expect(frameBytes(frame)).toBeGreaterThan(MAX_FRAME_BYTES);
        else expect(frameBytes(frame)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
      }
    }
    for (const a of many("oversized", 5))
      expect(frameBytes(sentFrames(a)[0] as WireFrame)).toBeGreaterThan(MAX_FRAME_BYTES);
  });

  it("invalid-json frames never parse", () => {
    for (const a of many("invalid-json", 300)) {
      for (const frame of sentFrames(a)) expect(() => JSON.parse(textOf(frame)), a.variant).toThrow();
    }
  });

  it("invalid-utf8 frames are text frames whose bytes are not UTF-8", () => {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for (const a of many("invalid-utf8", 50)) {
      const frame = sentFrames(a)[0] as WireFrame;
      expect(frame.binary).toBe(false);
      expect(frame.data).toBeInstanceOf(Uint8Array);
      expect(() => decoder.decode(frame.data as Uint8Array)).toThrow();
    }
  });

  it("wrong-type frames are JSON whose message differs from a well-formed one in a field's type or presence", () => {
    for (const a of many("wrong-type", 300)) {
      const first = JSON.parse(textOf(sentFrames(a)[0] as WireFrame));
      if (a.variant === "message-not-object") {
        expect(first === null || typeof first !== "object" || Array.isArray(first) || !("_tag" in first)).toBe(true);
        continue;
      }
      const [, field = ""] = a.variant.split(".");
      if (field === "_extra") {
        expect(first).toHaveProperty("_extra");
        continue;
      }
      // Well-formed types: _tag/id/tag/requestId strings, payload an object, headers an array.
      const expected = field === "payload" ? "object" : field === "headers" ? "array" : "string";
      const got = field in first ? jsonType(first[field]) : "missing";
      expect(got, `${a.variant}: ${JSON.stringify(first).slice(0, 120)}`).not.toBe(expected);
    }
  });

  it("bad-id frames carry ids that are not plain positive decimal strings", () => {
    for (const a of many("bad-id", 300)) {
      const msg = JSON.parse(textOf(sentFrames(a)[0] as WireFrame));
      const id = msg._tag === "Request" ? msg.id : msg.requestId;
      const plain = typeof id === "string" && /^[1-9][0-9]{0,15}$/.test(id);
      expect(plain, `${a.variant}: ${String(id).slice(0, 40)}`).toBe(false);
    }
  });

  it("deep-json frames nest at least 1,000 levels and still parse as JSON", () => {
    for (const a of many("deep-json", 20)) {
      const body = textOf(sentFrames(a)[0] as WireFrame);
      expect(body.match(/\[|\{/g)?.length ?? 0).toBeGreaterThanOrEqual(1000);
      expect(() => JSON.parse(body)).not.toThrow();
    }
  });

  it("binary kind sends binary frames", () => {
    for (const a of many("binary", 50)) expect(sentFrames(a).every((fr) => fr.binary)).toBe(true);
  });

  it("fresh ids never repeat on one connection, and duplicate-id repeats one id in several Requests", () => {
    const f = new FrameFuzzer(9);
    const requestIds: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const a = f.next();
      if (a.kind !== "duplicate-id" && a.kind !== "bad-id" && a.kind !== "invalid-utf8") {
        for (const fr of sentFrames(a)) {
          try {
            const m = JSON.parse(textOf(fr));
            if (m?._tag === "Request" && typeof m.id === "string" && /^[1-9][0-9]*$/.test(m.id)) requestIds.push(m.id);
          } catch {
            // not JSON: nothing to collect
          }
        }
      }
    }
    expect(new Set(requestIds).size).toBe(requestIds.length);
    for (const a of many("duplicate-id", 30)) {
      const ids = sentFrames(a)
        .map((fr) => JSON.parse(textOf(fr)))
        .filter((m) => m._tag === "Request")
        .map((m) => m.id);
      expect(ids.length).toBeGreaterThanOrEqual(2);
      expect(new Set(ids).size).toBe(1);
    }
  });

  it("ack-finished waits for the request's Exit before its Ack and Interrupt", () => {
    for (const a of many("ack-finished", 10)) {
      const wait = a.steps.findIndex((s) => s.op === "await-exit");
      const firstAck = a.steps.findIndex((s) => s.op === "send" && textOf(s.frame).includes('"Ack"'));
      expect(wait).toBeGreaterThan(0);
      expect(firstAck).toBeGreaterThan(wait);
    }
  });

  it("flood sends 20 to 200 frames in one action; abrupt-close ends with terminate", () => {
    for (const a of many("flood", 20)) {
      expect(framesIn(a)).toBeGreaterThanOrEqual(20);
      expect(framesIn(a)).toBeLessThanOrEqual(400);
    }
    for (const a of many("abrupt-close", 10)) expect(a.steps.at(-1)).toEqual({ op: "terminate" });
  });
});

describe("pickWeighted", () => {
  it("never picks a zero weight and follows the weights roughly", () => {
    const rng = randomFloats(5);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 10_000; i++) counts[pickWeighted(rng, { a: 1, b: 3, c: 0 })]++;
    expect(counts.c).toBe(0);
    expect(counts.b / counts.a).toBeGreaterThan(2.5);
    expect(counts.b / counts.a).toBeLessThan(3.5);
  });

  it("default weights cover exactly the frame kinds", () => {
    expect(Object.keys(DEFAULT_WEIGHTS).sort()).toEqual([...FRAME_KINDS].sort());
  });
});
