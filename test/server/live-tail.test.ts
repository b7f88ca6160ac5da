// Live tail: dispatchCommand reaches every live subscription, and an event appended while a
// catch-up is in flight is delivered exactly once (not lost between replay and live, not doubled).
import { afterAll, beforeAll, expect, it } from "vitest";
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
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let db: string;
let projectIds: string[];
const started: RunningServer[] = [];
const cursor = CHUNK_FIXTURE.projects;
const latest = CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events;

beforeAll(async () => {
  fixtures = tempFixtures();
  db = fixtures.make("live", CHUNK_FIXTURE);
  const server = await start("legacy");
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.request("1", "orchestration.subscribeShell", {});
  const snapshot = values(await conn.next(isChunkFor("1")))[0] as { projects: { id: string }[] };
  projectIds = snapshot.projects.map((p) => p.id);
  await conn.close();
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  fixtures?.cleanup();
});

async function start(delivery: string): Promise<RunningServer> {
  const server = await startServer(db, ["--item-shape", "lean", "--delivery", delivery]);
  started.push(server);
  return server;
}

async function dispatch(conn: RawConnection, id: string, projectId: string, title: string): Promise<number> {
  conn.request(id, "orchestration.dispatchCommand", { type: "project.update", projectId, title });
  const exit = await conn.next(isExitFor(id));
  return (exit.exit as { value: { sequence: number } }).value.sequence;
}

/** Items of subscription `id` carrying sequence `seq`, across all its chunks so far. */
const carrying = (frames: Frame[], id: string, seq: number) =>
  frames
    .filter(isChunkFor(id))
    .flatMap(values)
    .filter((v) => v.sequence === seq && v.kind === "project.updated");

it.each(["legacy", "batched"])("%s: an event appended mid-catch-up arrives exactly once", async (delivery) => {
  const server = await start(delivery);
  const sub = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  const op = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  // Catch-up read; first chunk held un-ACKed, so the subscription is mid-catch-up.
  sub.request("1", "orchestration.subscribeShell", { afterSequence: cursor, requestCompletionMarker: true });
  await sub.next(isChunkFor("1"));
  const seq = await dispatch(op, "1", projectIds[0] as string, "mid-catch-up");
  expect(seq).toBe(latest + 1);
  // Drain the catch-up through the marker, ACKing every chunk.
  let from = 0;
  for (;;) {
    const chunk = await sub.next(isChunkFor("1"), 10_000, from);
    from = sub.frames.indexOf(chunk) + 1;
    sub.ack("1");
    if (values(chunk).some((v) => v.kind === "synchronized")) break;
  }
  // Then the live event (it came after the catch-up's high-water mark), once.
  const live = await sub.next((f) => isChunkFor("1")(f) && carrying([f], "1", seq).length > 0, 10_000, from);
  sub.ack("1");
  expect(values(live)[0]).toMatchObject({ project: { id: projectIds[0], title: "mid-catch-up" } });
  // A later event proves the stream went on past it without a duplicate in between.
  const next = await dispatch(op, "2", projectIds[1] as string, "after");
  await sub.next((f) => isChunkFor("1")(f) && carrying([f], "1", next).length > 0, 10_000, from);
  expect(carrying(sub.frames, "1", seq)).toHaveLength(1);
  // The catch-up itself ends at the high-water mark captured before the append.
  expect(sub.frames.filter(isChunkFor("1")).flatMap(values)).toContainEqual({ kind: "synchronized", sequence: latest });
  await Promise.all([sub.close(), op.close()]);
});

it("an event appended before a subscription starts is in its catch-up, not repeated live", async () => {
  const server = await start("batched");
  const op = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  const seq = await dispatch(op, "1", projectIds[2] as string, "before");
  const sub = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  sub.request("1", "orchestration.subscribeShell", { afterSequence: latest, requestCompletionMarker: true });
  const first = await sub.next(isChunkFor("1"));
  expect(values(first)).toEqual([
    { kind: "resume", fromSequence: latest, toSequence: seq },
    expect.objectContaining({ kind: "project.updated", sequence: seq }),
    { kind: "synchronized", sequence: seq },
  ]);
  sub.ack("1");
  const next = await dispatch(op, "2", projectIds[3] as string, "after");
  await sub.next((f) => isChunkFor("1")(f) && carrying([f], "1", next).length > 0);
  expect(carrying(sub.frames, "1", seq)).toHaveLength(1);
  await Promise.all([sub.close(), op.close()]);
});

it("a command reaches every live subscription", async () => {
  const server = await start("legacy");
  const subs = await Promise.all([0, 1, 2].map(() => RawConnection.open(server.url, { bearer: DEV_TOKEN })));
  for (const sub of subs) {
    await subscribeThroughCompletion(sub, "5", { afterSequence: latest });
    sub.ack("5");
  }
  const seq = await dispatch(subs[0] as RawConnection, "9", projectIds[4] as string, "broadcast");
  for (const sub of subs) {
    const live = await sub.next((f) => isChunkFor("5")(f) && carrying([f], "5", seq).length > 0);
    expect(values(live)[0]).toMatchObject({ project: { id: projectIds[4], title: "broadcast" } });
  }
  await Promise.all(subs.map((s) => s.close()));
});

let requestIds = 100;

it("a subscriber that does not ACK holds at most 1,000 live items: 1,000 arrive, 1,001 end its stream with LiveBufferError", async () => {
  const server = await start("batched");
  await checkLiveBudget({
    server,
    subscribe: async (conn, past) => {
      await subscribeThroughCompletion(conn, "1", { afterSequence: latest + past });
    },
    append: async (writer, n, label) => {
      for (let i = 0; i < n; i++)
        await dispatch(writer, String(++requestIds), projectIds[i % projectIds.length] as string, `${label}${i}`);
    },
    counters: (s) => s.shell,
  });
}, 120_000);
