// Legacy delivery reads the replay lazily: each page of up to 512 items is read from the store only
// when the stream pulls its chunk, which the RPC server does after the previous chunk's Ack. The
// server's own page counter (server.getConfig's stats) shows when reads happen.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Frame, isChunkFor, isExitFor, RawConnection } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let legacy: RunningServer;
let batched: RunningServer;

beforeAll(async () => {
  fixtures = tempFixtures();
  const db = fixtures.make("lazy", CHUNK_FIXTURE);
  [legacy, batched] = await Promise.all([
    startServer(db, ["--delivery", "legacy"]),
    startServer(db, ["--delivery", "batched"]),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([legacy?.stop(), batched?.stop()]);
  fixtures?.cleanup();
});

let nextId = 100;
/** Replay pages the server has read so far, asked on the same connection (answered while ACKs are held). */
async function pagesRead(conn: RawConnection): Promise<number> {
  const id = String(nextId++);
  conn.request(id, "server.getConfig", {});
  const exit = (await conn.next(isExitFor(id))) as Frame & { exit: { value: { stats: { replayPagesRead: number } } } };
  return exit.exit.value.stats.replayPagesRead;
}

it("legacy: the next replay page is read only after the previous chunk's Ack", async () => {
  const conn = await RawConnection.open(legacy.url, { bearer: DEV_TOKEN });
  try {
    const before = await pagesRead(conn);
    conn.request("1", "orchestration.subscribeShell", {
      afterSequence: CHUNK_FIXTURE.projects,
      requestCompletionMarker: true,
    });
    const chunks = async (n: number) => {
      while (conn.frames.filter(isChunkFor("1")).length < n) {
        const seen = conn.frames.length;
        await conn.next(isChunkFor("1"), 10_000, seen);
      }
      return conn.frames.filter(isChunkFor("1"));
    };
    await chunks(1); // the resume metadata: no replay page read yet
    expect((await pagesRead(conn)) - before).toBe(0);
    conn.ack("1");
    const [, page1] = await chunks(2);
    expect((page1?.values as unknown[] | undefined)?.length).toBe(512);
    // The second page waits for this chunk's Ack.
    expect((await pagesRead(conn)) - before).toBe(1);
    expect((await pagesRead(conn)) - before).toBe(1);
    conn.ack("1");
    const [, , page2] = await chunks(3);
    expect((page2?.values as unknown[] | undefined)?.length).toBe(CHUNK_FIXTURE.projects - 512);
    expect((await pagesRead(conn)) - before).toBe(2);
    conn.ack("1");
    const [, , , marker] = await chunks(4);
    expect(marker?.values).toEqual([{ kind: "synchronized", sequence: CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events }]);
  } finally {
    await conn.close();
  }
});

it("batched with the marker: the whole replay is read at once, before the one chunk", async () => {
  const conn = await RawConnection.open(batched.url, { bearer: DEV_TOKEN });
  try {
    const before = await pagesRead(conn);
    conn.request("1", "orchestration.subscribeShell", {
      afterSequence: CHUNK_FIXTURE.projects,
      requestCompletionMarker: true,
    });
    const chunk = await conn.next(isChunkFor("1"));
    expect((chunk.values as unknown[]).length).toBe(1 + CHUNK_FIXTURE.projects + 1);
    expect((await pagesRead(conn)) - before).toBe(1);
  } finally {
    await conn.close();
  }
});
