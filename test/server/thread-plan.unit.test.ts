// Pure parts of the thread subscription: the resume preflight (which budget sends a snapshot), the
// encoded-size measure, the projection fold, and how each delivery strategy cuts a thread catch-up.
import { describe, expect, it } from "vitest";
import {
  encodedBytes,
  eventItem,
  foldProjection,
  preflightThreadResume,
  THREAD_REPLAY_MAX_EVENTS,
  THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES,
} from "../../server-under-test/thread-catchup.js";
import { planThreadChunks } from "../../server-under-test/thread-delivery.js";
import type { StoredThreadEvent } from "../../server-under-test/thread-store.js";

const stats = (events: number, rawPayloadBytes = 0, hasCreateEvent = false) => ({
  events,
  rawPayloadBytes,
  hasCreateEvent,
});

describe("preflightThreadResume", () => {
  const at = { afterSequence: 10, highWater: 20_000 };
  it("replays at the budgets' edges", () => {
    expect(
      preflightThreadResume({ ...at, stats: stats(THREAD_REPLAY_MAX_EVENTS, THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES) }),
    ).toEqual({
      mode: "replay",
    });
    expect(preflightThreadResume({ afterSequence: 10, highWater: 10, stats: stats(0) })).toEqual({ mode: "replay" });
  });
  it("falls back one beyond each, naming why", () => {
    const reason = (input: Parameters<typeof preflightThreadResume>[0]) => {
      const plan = preflightThreadResume(input);
      return plan.mode === "snapshot" ? plan.reason : null;
    };
    expect(reason({ afterSequence: 11, highWater: 10, stats: stats(0) })).toBe("cursor-ahead");
    expect(reason({ ...at, stats: stats(THREAD_REPLAY_MAX_EVENTS + 1) })).toBe("events");
    expect(reason({ ...at, stats: stats(1, THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES + 1) })).toBe("stored-bytes");
    expect(reason({ ...at, stats: stats(1, 10, true) })).toBe("created");
  });
});

const stored = (sequence: number, type: string, payload: unknown): StoredThreadEvent => ({
  sequence,
  eventId: `e${sequence}`,
  threadId: "t",
  type,
  occurredAt: `2025-01-01T00:00:0${sequence}.000Z`,
  payloadJson: JSON.stringify(payload),
});

describe("thread items", () => {
  it("an event item carries the decoded payload; its encoded size is its JSON's UTF-8 bytes", () => {
    const item = eventItem(stored(3, "message.updated", { id: "m", text: "déjà" }));
    expect(item).toEqual({
      kind: "event",
      sequence: 3,
      event: {
        id: "e3",
        threadId: "t",
        type: "message.updated",
        occurredAt: "2025-01-01T00:00:03.000Z",
        payload: { id: "m", text: "déjà" },
      },
    });
    expect(encodedBytes([item, item])).toBe(2 * Buffer.byteLength(JSON.stringify(item), "utf8"));
  });

  it("the projection keeps the latest version of each message and turn item", () => {
    const p = foldProjection([
      stored(1, "thread.created", { id: "t" }),
      stored(2, "message.updated", { id: "m1", text: "a" }),
      stored(3, "turn-item.updated", { id: "i1", status: "running" }),
      stored(4, "message.updated", { id: "m1", text: "b" }),
      stored(5, "turn-item.updated", { id: "i1", status: "completed" }),
      stored(6, "message.updated", { id: "m2", text: "c" }),
    ]);
    expect(p).toEqual({
      thread: { id: "t" },
      messages: [
        { id: "m1", text: "b" },
        { id: "m2", text: "c" },
      ],
      turnItems: [{ id: "i1", status: "completed" }],
      updatedAt: "2025-01-01T00:00:06.000Z",
    });
  });
});

describe("planThreadChunks", () => {
  const marker = "M";
  it("legacy: the catch-up, then the marker in a chunk of its own", () => {
    expect(planThreadChunks(["s"], marker, "legacy")).toEqual([["s"], ["M"]]);
    expect(planThreadChunks(["e1", "e2"], marker, "legacy")).toEqual([["e1", "e2"], ["M"]]);
    expect(planThreadChunks([], marker, "legacy")).toEqual([["M"]]);
  });
  it("batched: the marker in the first chunk", () => {
    expect(planThreadChunks(["s"], marker, "batched")).toEqual([["s", "M"]]);
    expect(planThreadChunks(["e1", "e2"], marker, "batched")).toEqual([["e1", "e2", "M"]]);
  });
  it("without a marker both send the catch-up alone", () => {
    expect(planThreadChunks(["s"], null, "batched")).toEqual([["s"]]);
    expect(planThreadChunks(["s"], null, "legacy")).toEqual([["s"]]);
  });
});
