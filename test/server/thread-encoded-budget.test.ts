// The thread replay's encoded-size budget at its exact edge, on the real ThreadStore over a real
// (in-memory) SQLite database: stored payloads within 1 MiB whose wire items encode to one byte more
// than 1 MiB fall back to a snapshot; at exactly 1 MiB they replay.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SCHEMA_SQL } from "../../fixtures/schema.js";
import {
  encodedBytes,
  eventItem,
  readThreadCatchUp,
  THREAD_REPLAY_MAX_ENCODED_BYTES,
  THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES,
} from "../../server-under-test/thread-catchup.js";
import { ThreadStore } from "../../server-under-test/thread-store.js";

const NOW = new Date("2025-01-01T00:00:00.000Z");

/** A store holding one created thread; appended messages carry `{"text":"…"}` (text + 11 bytes). */
function storeWithThread(threadId: string) {
  const db = new Database(":memory:");
  db.exec(SCHEMA_SQL);
  db.prepare(
    `INSERT INTO orchestration_events VALUES (1, 'e1', 'thread', ?, 1, 'thread.created', '2025-01-01T00:00:00.000Z', ?, '{}')`,
  ).run(threadId, JSON.stringify({ id: threadId }));
  let sequence = 1;
  const store = new ThreadStore(db, () => ++sequence);
  const append = (textBytes: number) => {
    const e = store.append(threadId, "message.updated", { text: "x".repeat(textBytes) }, NOW);
    if (!e) throw new Error("append failed");
    return e;
  };
  return { store, append, close: () => db.close() };
}

/** Appends two messages whose encoded items total `encodedTarget` bytes; returns the cursor before them. */
function twoMessages(threadId: string, encodedTarget: number) {
  const t = storeWithThread(threadId);
  // a probe of the same sequence and id widths tells the envelope of one item
  const probe = t.append(0);
  const envelope = encodedBytes([eventItem(probe)]) - Buffer.byteLength(probe.payloadJson);
  const raw = encodedTarget - 2 * envelope;
  const first = 600_000;
  t.append(first - 11);
  t.append(raw - first - 11);
  return { ...t, cursor: probe.sequence, raw };
}

describe("thread replay: encoded bytes", () => {
  it("one byte over 1 MiB encoded (stored payload within 1 MiB): a snapshot, reason encoded-bytes", () => {
    const t = twoMessages("t", THREAD_REPLAY_MAX_ENCODED_BYTES + 1);
    expect(t.raw).toBeLessThanOrEqual(THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES);
    const c = readThreadCatchUp(t.store, "t", t.cursor);
    expect(c.ok && c.fallback).toBe("encoded-bytes");
    expect(c.ok && c.items.map((i) => i.kind)).toEqual(["snapshot"]);
    t.close();
  });

  it("exactly 1 MiB encoded: the two events are replayed", () => {
    const t = twoMessages("u", THREAD_REPLAY_MAX_ENCODED_BYTES);
    const c = readThreadCatchUp(t.store, "u", t.cursor);
    expect(c.ok && c.fallback).toBeNull();
    expect(c.ok && encodedBytes(c.items)).toBe(THREAD_REPLAY_MAX_ENCODED_BYTES);
    expect(c.ok && c.items.map((i) => i.kind)).toEqual(["event", "event"]);
    t.close();
  });
});
