// The thread subscription against the real server on a real fixture: per-thread cursors, the
// replay budgets and their snapshot fallbacks, chunk counts per delivery strategy, the live tail
// and its retention budget. Expected rows are read from the fixture file itself.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { checkLiveBudget } from "../support/live-budget-check.js";
import {
  type Frame,
  isChunkFor,
  isExitFor,
  RawConnection,
  subscribeThroughCompletion,
  values,
} from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { serverStats } from "../support/server-stats.js";

const TAG = "orchestration.subscribeThread";
const THREADS = 3;
const THREAD_EVENTS = 100;

interface Meta {
  threadId: string;
  threadCursorSequence: number;
  threadLatestSequence: number;
  latestSequence: number;
}
interface Row {
  sequence: number;
  stream_id: string;
  event_type: string;
  payload_json: string;
}
let fixtures: TempFixtures;
let db: string;
let rows: Row[];
let legacy: RunningServer;
let batched: RunningServer;
let meta: Meta;

beforeAll(async () => {
  fixtures = tempFixtures("catchup-thread-test");
  db = generateFixture({
    projects: 20,
    scriptBytesMin: 64,
    scriptBytesMax: 64,
    scriptsPerProject: 1,
    events: 10,
    threads: THREADS,
    threadEvents: THREAD_EVENTS,
    seed: 11,
    out: `${fixtures.dir}/threads.sqlite`,
  }).path;
  const file = new Database(db, { readonly: true });
  rows = file
    .prepare(
      "SELECT sequence, stream_id, event_type, payload_json FROM orchestration_events WHERE aggregate_kind = 'thread' ORDER BY sequence",
    )
    .all() as Row[];
  file.close();
  [legacy, batched] = await Promise.all([
    startServer(db, ["--delivery", "legacy"]),
    startServer(db, ["--delivery", "batched"]),
  ]);
  meta = legacy.ready.fixture as Meta;
}, 60_000);

afterAll(async () => {
  await Promise.all([legacy?.stop(), batched?.stop()]);
  fixtures?.cleanup();
});

const threadIds = () => [...new Set(rows.map((r) => r.stream_id))];
const sequencesOf = (threadId: string) => rows.filter((r) => r.stream_id === threadId).map((r) => r.sequence);

async function open(server: RunningServer) {
  return RawConnection.open(server.url, { bearer: DEV_TOKEN });
}

let ids = 0;
/** Subscribes to a thread (marker requested) and ACKs chunks until the marker. */
async function catchUp(server: RunningServer, payload: Record<string, unknown>) {
  const conn = await open(server);
  try {
    return await subscribeThroughCompletion(conn, String(++ids), payload, 0, 20_000, TAG);
  } finally {
    await conn.close();
  }
}

const stats = async (server: RunningServer) => (await serverStats(server)).threads;

/** One fallback more for `reason` than before, and the first item a snapshot. */
async function expectFallback(server: RunningServer, payload: Record<string, unknown>, reason: string) {
  const before = await stats(server);
  const { items } = await catchUp(server, payload);
  const after = await stats(server);
  expect(items[0]?.kind).toBe("snapshot");
  expect(items.at(-1)).toEqual({ kind: "synchronized" });
  expect(after.fallbacks[reason]).toBe((before.fallbacks[reason] ?? 0) + 1);
  return items;
}

let dispatches = 1000;
/** Appends a message to a thread through orchestration.dispatchCommand; returns its sequence. */
async function dispatch(conn: RawConnection, threadId: string, text: string): Promise<number> {
  const id = String(++dispatches);
  conn.request(id, "orchestration.dispatchCommand", { type: "thread.message.append", threadId, role: "user", text });
  const exit = await conn.next(isExitFor(id), 20_000);
  const value = (exit.exit as { _tag: string; value?: { sequence: number } }).value;
  if (!value) throw new Error(`dispatch failed: ${JSON.stringify(exit)}`);
  return value.sequence;
}

describe("per-thread cursors", () => {
  it("replays exactly the later events of that thread, in order, none of the other threads'", async () => {
    const mine = rows.filter((r) => r.stream_id === meta.threadId && r.sequence > meta.threadCursorSequence);
    // the threads interleave: other threads' events lie between this thread's
    expect(rows.some((r) => r.stream_id !== meta.threadId && r.sequence > meta.threadCursorSequence)).toBe(true);
    const { items } = await catchUp(legacy, { threadId: meta.threadId, afterSequence: meta.threadCursorSequence });
    const events = items.slice(0, -1) as { kind: string; sequence: number; event: Record<string, unknown> }[];
    expect(events.map((e) => e.kind)).toEqual(mine.map(() => "event"));
    expect(events.map((e) => e.sequence)).toEqual(mine.map((r) => r.sequence));
    expect(events.map((e) => [e.event.threadId, e.event.type, e.event.payload])).toEqual(
      mine.map((r) => [meta.threadId, r.event_type, JSON.parse(r.payload_json)]),
    );
    expect(items.at(-1)).toEqual({ kind: "synchronized" });
  });

  it("a cursor that is another thread's event still replays only this thread's events after it", async () => {
    const [, other] = threadIds();
    const mineSeqs = sequencesOf(meta.threadId);
    const cursor = (sequencesOf(other as string).find((s) => s > (mineSeqs[50] as number)) as number) ?? 0;
    const { items } = await catchUp(batched, { threadId: meta.threadId, afterSequence: cursor });
    expect(items.slice(0, -1).map((i) => i.sequence)).toEqual(mineSeqs.filter((s) => s > cursor));
  });

  it("a cursor at the thread's high-water mark: no events, just the marker", async () => {
    const { items, chunks } = await catchUp(legacy, {
      threadId: meta.threadId,
      afterSequence: meta.threadLatestSequence,
    });
    expect(items).toEqual([{ kind: "synchronized" }]);
    expect(chunks).toHaveLength(1);
  });

  it("a snapshot carries the thread's projection, folded from all its events", async () => {
    const { items } = await catchUp(batched, { threadId: meta.threadId });
    const mine = rows.filter((r) => r.stream_id === meta.threadId);
    const snapshot = items[0] as { kind: string; snapshotSequence: number; projection: Record<string, unknown[]> };
    expect(snapshot.kind).toBe("snapshot");
    expect(snapshot.snapshotSequence).toBe(meta.threadLatestSequence);
    const count = (type: string) => mine.filter((r) => r.event_type === type).length;
    expect(snapshot.projection.messages).toHaveLength(count("message.updated"));
    expect(snapshot.projection.turnItems).toHaveLength(count("turn-item.updated"));
    expect(snapshot.projection.thread).toEqual(JSON.parse((mine[0] as Row).payload_json));
  });

  it("an unknown thread is a failed Exit with ThreadNotFoundError", async () => {
    const conn = await open(legacy);
    conn.request("1", TAG, { threadId: "thread-none", requestCompletionMarker: true });
    const exit = await conn.next(isExitFor("1"));
    expect(JSON.stringify(exit.exit)).toContain("ThreadNotFoundError");
    await conn.close();
  });
});

describe("replay budgets and snapshot fallbacks", () => {
  it("a cursor ahead of the thread's high-water mark gets a snapshot", async () => {
    await expectFallback(legacy, { threadId: meta.threadId, afterSequence: meta.latestSequence + 5 }, "cursor-ahead");
  });

  it("a range holding the thread's creation gets a snapshot", async () => {
    const created = sequencesOf(meta.threadId)[0] as number;
    await expectFallback(legacy, { threadId: meta.threadId, afterSequence: created - 1 }, "created");
    // one past the creation: a replay
    const { items } = await catchUp(legacy, { threadId: meta.threadId, afterSequence: created });
    expect(items[0]?.kind).toBe("event");
  });

  it("replays 128 of the thread's events, falls back to a snapshot at 129", async () => {
    // a thread of its own for this test: 100 fixture events + 40 appended ones
    const threadId = threadIds()[2] as string;
    const conn = await open(batched);
    const appended: number[] = [];
    for (let i = 0; i < 40; i++) appended.push(await dispatch(conn, threadId, `message ${i}`));
    await conn.close();
    const all = [...sequencesOf(threadId), ...appended];
    const at128 = all[all.length - 129] as number;
    const at129 = all[all.length - 130] as number;
    const { items } = await catchUp(batched, { threadId, afterSequence: at128 });
    expect(items.slice(0, -1).map((i) => i.sequence)).toEqual(all.slice(-128));
    await expectFallback(batched, { threadId, afterSequence: at129 }, "events");
  });

  it("falls back to a snapshot when the stored payload of the range exceeds 1 MiB", async () => {
    const threadId = threadIds()[1] as string;
    const conn = await open(legacy);
    const before = await stats(legacy);
    const from = sequencesOf(threadId).at(-1) as number;
    await dispatch(conn, threadId, "x".repeat(600_000));
    // one 600 kB message: within budget, replayed
    const one = await catchUp(legacy, { threadId, afterSequence: from });
    expect(one.items.map((i) => i.kind)).toEqual(["event", "synchronized"]);
    await dispatch(conn, threadId, "y".repeat(600_000));
    await conn.close();
    await expectFallback(legacy, { threadId, afterSequence: from }, "stored-bytes");
    expect((await stats(legacy)).fallbacks["encoded-bytes"]).toBe(before.fallbacks["encoded-bytes"]);
  });
});

describe("chunks through completion", () => {
  it.each([
    ["legacy", "snapshot", 2],
    ["legacy", "resume", 2],
    ["batched", "snapshot", 1],
    ["batched", "resume", 1],
  ])("%s %s: %i chunk(s), the marker last", async (delivery, kind, expected) => {
    const server = delivery === "legacy" ? legacy : batched;
    const payload =
      kind === "snapshot"
        ? { threadId: meta.threadId }
        : { threadId: meta.threadId, afterSequence: meta.threadCursorSequence };
    const { chunks, items } = await catchUp(server, payload);
    expect(chunks).toHaveLength(expected);
    expect(items.at(-1)).toEqual({ kind: "synchronized" });
    expect(items.filter((i) => i.kind === "synchronized")).toHaveLength(1);
    if (delivery === "legacy") expect(values(chunks.at(-1) as Frame)).toEqual([{ kind: "synchronized" }]);
  });
});

describe("live tail", () => {
  it("delivers an appended event after the marker, with a later sequence", async () => {
    const conn = await open(batched);
    const threadId = threadIds()[0] as string;
    await subscribeThroughCompletion(conn, "1", { threadId, afterSequence: meta.threadLatestSequence }, 0, 20_000, TAG);
    conn.ack("1");
    const from = conn.frames.length;
    const sequence = await dispatch(conn, threadId, "hello");
    const chunk = await conn.next(isChunkFor("1"), 20_000, from);
    expect(values(chunk)).toMatchObject([{ kind: "event", sequence, event: { threadId, payload: { text: "hello" } } }]);
    await conn.close();
  });

  it("retains at most 1,000 unacknowledged live items: 1,000 arrive, 1,001 end the stream with LiveBufferError", async () => {
    const server = await startServer(db, ["--delivery", "batched"]);
    try {
      const threadId = threadIds()[0] as string;
      await checkLiveBudget({
        server,
        subscribe: async (conn, past) => {
          const payload = { threadId, afterSequence: meta.threadLatestSequence + past };
          await subscribeThroughCompletion(conn, "1", payload, 0, 20_000, TAG);
        },
        append: async (writer, n, label) => {
          for (let i = 0; i < n; i++) await dispatch(writer, threadId, `${label}${i}`);
        },
        counters: (s) => s.threads,
      });
    } finally {
      await server.stop();
    }
  });
});
