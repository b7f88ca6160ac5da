// The framing module decodes both wire dialects, from recorded Effect 3 frames and hand-written
// Effect 4 frames, and builds subscribe payloads and byte counts exactly.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  causeText,
  decodeFrame,
  encodeAck,
  encodeRequest,
  normaliseId,
  utf8ByteLength,
} from "../../scenarios/lib/framing.js";
import { SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { effect3, effect4 } from "./support/dialects.js";

const recorded = JSON.parse(readFileSync(new URL("./frames/effect3-recorded.json", import.meta.url), "utf8")) as Record<
  string,
  string | string[]
>;

describe("encoding", () => {
  it("sends decimal-string ids and an empty headers array, as the Effect 3 server requires", () => {
    expect(JSON.parse(encodeRequest("12", "server.getConfig", {}))).toEqual({
      _tag: "Request",
      id: "12",
      tag: "server.getConfig",
      payload: {},
      headers: [],
    });
    expect(JSON.parse(encodeAck("1"))).toEqual({ _tag: "Ack", requestId: "1" });
  });
});

describe("decoding recorded Effect 3 frames (bundled server)", () => {
  it("reads the legacy resume chunks and finds the marker", () => {
    const frames = (recorded.resumeOneLegacy as string[]).map(decodeFrame);
    expect(frames.map((f) => f.type)).toEqual(["chunk", "chunk", "chunk"]);
    const last = frames[2];
    expect(last?.type === "chunk" && last.values).toEqual([{ kind: "synchronized", sequence: 1100 }]);
    expect(frames[0]?.type === "chunk" && frames[0].requestId).toBe("1");
  });

  it("reads a unary success, the unknown-tag Defect, failures and Pong", () => {
    const config = decodeFrame(recorded.getConfigExit);
    expect(config).toMatchObject({ type: "exit", requestId: "2", success: true });
    expect(decodeFrame(recorded.unknownTagDefect)).toEqual({
      type: "defect",
      reason: "Unknown request tag: no.such.tag",
    });
    const ahead = decodeFrame(recorded.cursorAheadExit);
    expect(ahead).toMatchObject({ type: "exit", requestId: "5", success: false });
    expect(ahead.type === "exit" && !ahead.success && ahead.reason).toMatch(
      /^Fail: CursorAheadError: afterSequence 999999 is beyond/,
    );
    const invalid = decodeFrame(recorded.invalidPayloadExit);
    expect(invalid.type === "exit" && !invalid.success && invalid.reason).toMatch(/^Die: .*afterSequence/s);
    expect(decodeFrame(recorded.notJsonDefect)).toMatchObject({ type: "defect", reason: /^SyntaxError: / });
    expect(decodeFrame(recorded.pong)).toEqual({ type: "pong" });
  });

  it("says Interrupt once for Effect 3's repeated interrupt tree", () => {
    const exit = decodeFrame(recorded.interruptExit);
    expect(exit.type === "exit" && !exit.success && exit.reason).toBe("Interrupt");
  });
});

describe("decoding Effect 4 frames", () => {
  it("accepts echoed ids (numeric too), headers, null success values and flat causes", () => {
    expect(decodeFrame(effect4.chunk("1", [{ kind: "synchronized" }]))).toEqual({
      type: "chunk",
      requestId: "1",
      values: [{ kind: "synchronized" }],
    });
    expect(decodeFrame('{"_tag":"Chunk","requestId":7,"values":[],"headers":[["x","y"]]}')).toMatchObject({
      requestId: "7",
    });
    expect(decodeFrame(effect4.success("1", undefined))).toEqual({
      type: "exit",
      requestId: "1",
      success: true,
      value: null,
    });
    const failed = decodeFrame(
      effect4.fail("2", { _tag: "AuthorizationError", requiredScope: "orchestration:read", message: "scope missing" }),
    );
    expect(failed.type === "exit" && !failed.success && failed.reason).toBe("Fail: AuthorizationError: scope missing");
    expect(
      causeText([
        { _tag: "Die", defect: "boom" },
        { _tag: "Interrupt", fiberId: 3 },
      ]),
    ).toBe("Die: boom; Interrupt");
  });
});

describe("bad frames", () => {
  it.each([
    ["not JSON", "{nope", /not JSON/],
    ["an array of messages", "[]", /not a JSON object/],
    ["an unknown tag", '{"_tag":"Hello"}', /unexpected frame _tag "Hello"/],
    ["a Chunk without values", '{"_tag":"Chunk","requestId":"1"}', /without a values array/],
    ["an Exit of unknown shape", '{"_tag":"Exit","requestId":"1","exit":{}}', /unknown exit shape/],
  ])("reports %s", (_name, text, reason) => {
    const frame = decodeFrame(text);
    expect(frame.type).toBe("bad");
    expect(frame.type === "bad" && frame.reason).toMatch(reason);
  });

  it("reports a binary frame", () => {
    expect(decodeFrame(new Uint8Array(2))).toMatchObject({ type: "bad", reason: /binary frame/ });
  });
});

describe("ids", () => {
  it("normalises decimal ids so Effect 3's normalised echo and Effect 4's exact echo both match", () => {
    expect(normaliseId("007")).toBe("7");
    expect(normaliseId(7)).toBe("7");
    expect(normaliseId("0")).toBe("0");
    expect(normaliseId("abc")).toBe("abc");
  });
});

describe("buildSubscribePayload", () => {
  it("substitutes the cursor, or drops the property for a snapshot", () => {
    expect(buildSubscribePayload(SUBSCRIBE_TEMPLATE, 1000)).toEqual({
      afterSequence: 1000,
      requestCompletionMarker: true,
    });
    expect(buildSubscribePayload(SUBSCRIBE_TEMPLATE, null)).toEqual({ requestCompletionMarker: true });
    expect(buildSubscribePayload('{"cursor":{"after":"{after}"},"list":[{after}]}', 5)).toEqual({
      cursor: { after: 5 },
      list: [5],
    });
    expect(buildSubscribePayload('{"fixed":1}', 5)).toEqual({ fixed: 1 });
  });

  it("names the template when it is not JSON, and refuses a negative cursor", () => {
    expect(() => buildSubscribePayload("{after", 1)).toThrow(/subscribe payload template is not JSON/);
    expect(() => buildSubscribePayload(SUBSCRIBE_TEMPLATE, -1)).toThrow(/integer >= 0 or null/);
  });
});

describe("utf8ByteLength", () => {
  it("matches Buffer.byteLength for ASCII, accents, arrows, emoji and a lone surrogate", () => {
    for (const s of [
      "",
      "abc",
      "Démarrer → terminé ✓",
      "😀 x",
      "\ud800",
      (recorded.resumeOneLegacy as string[])[1] ?? "",
    ]) {
      expect(utf8ByteLength(s)).toBe(Buffer.byteLength(s, "utf8"));
    }
  });
});

describe("the hand-written Effect 3 dialect matches the recorded one", () => {
  it("encodes a Fail cause the way the bundled server does", () => {
    const frame = decodeFrame(effect3.fail("5", { _tag: "CursorAheadError", message: "m" }));
    expect(frame.type === "exit" && !frame.success && frame.reason).toBe("Fail: CursorAheadError: m");
  });
});
