// Legacy delivery reads the replay lazily: its event log is read in pages of 500, grouped into chunks
// of up to 512 items (--replay-group-items), and a page is read only when the stream pulls the next
// chunk, which the RPC server does after the previous chunk's Ack. The server's own page counter
// (server.getConfig's stats) shows when reads happen.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Frame, isChunkFor, isExitFor, RawConnection } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let legacy: RunningServer;
let batched: RunningServer;
let smallGroups: RunningServer;

beforeAll(async () => {
  fixtures = tempFixtures();
  const db = fixtures.make("lazy", CHUNK_FIXTURE);
  // group windows far longer than any stall of a loaded machine, so groups are cut by size alone
  // (the window itself is tested with a controlled clock in grouping.unit.test.ts)
  const window = ["--replay-group-window-ms", "600000"];
  [legacy, batched, smallGroups] = await Promise.all([
    startServer(db, ["--delivery", "legacy", ...window]),
    startServer(db, ["--delivery", "batched"]),
    startServer(db, ["--delivery", "legacy", "--replay-group-items", "200", ...window]),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([legacy?.stop(), batched?.stop(), smallGroups?.stop()]);
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

/** Waits until subscription "1" on `conn` has delivered `n` chunks; returns them. */
async function chunks(conn: RawConnection, n: number): Promise<Frame[]> {
  while (conn.frames.filter(isChunkFor("1")).length < n) {
    const seen = conn.frames.length;
    await conn.next(isChunkFor("1"), 10_000, seen);
  }
  return conn.frames.filter(isChunkFor("1"));
}
const sizeOf = (chunk: Frame | undefined) => (chunk?.values as unknown[] | undefined)?.length;

it("legacy: groups of up to 512 items, the replay's pages read as the groups are pulled", async () => {
  const conn = await RawConnection.open(legacy.url, { bearer: DEV_TOKEN });
  try {
    const before = await pagesRead(conn);
    conn.request("1", "orchestration.subscribeShell", {
      afterSequence: CHUNK_FIXTURE.projects,
      requestCompletionMarker: true,
    });
    await chunks(conn, 1); // the resume metadata: no replay page read yet
    expect((await pagesRead(conn)) - before).toBe(0);
    conn.ack("1");
    const [, group1] = await chunks(conn, 2);
    // 512 items take page 1 (500) and 12 of page 2; the rest of page 2 waits for the next group
    expect(sizeOf(group1)).toBe(512);
    expect((await pagesRead(conn)) - before).toBe(2);
    conn.ack("1");
    const [, , group2] = await chunks(conn, 3);
    expect(sizeOf(group2)).toBe(CHUNK_FIXTURE.projects - 512);
    expect((await pagesRead(conn)) - before).toBe(2);
    conn.ack("1");
    const [, , , marker] = await chunks(conn, 4);
    expect(marker?.values).toEqual([{ kind: "synchronized", sequence: CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events }]);
  } finally {
    await conn.close();
  }
});

it("legacy: the next replay page is read only after the previous chunk's Ack", async () => {
  // groups of 200 over pages of 500: group 1 reads page 1, group 2 is page 1's rest, group 3 needs page 2
  const conn = await RawConnection.open(smallGroups.url, { bearer: DEV_TOKEN });
  try {
    const before = await pagesRead(conn);
    conn.request("1", "orchestration.subscribeShell", {
      afterSequence: CHUNK_FIXTURE.projects,
      requestCompletionMarker: true,
    });
    await chunks(conn, 1);
    expect((await pagesRead(conn)) - before).toBe(0);
    conn.ack("1");
    const [, group1] = await chunks(conn, 2);
    expect(sizeOf(group1)).toBe(200);
    expect((await pagesRead(conn)) - before).toBe(1);
    conn.ack("1");
    const [, , group2] = await chunks(conn, 3);
    expect(sizeOf(group2)).toBe(200);
    // group 3 needs page 2: while group 2 waits for its Ack, page 2 stays unread (asked twice)
    expect((await pagesRead(conn)) - before).toBe(1);
    expect((await pagesRead(conn)) - before).toBe(1);
    conn.ack("1");
    const [, , , group3] = await chunks(conn, 4);
    expect(sizeOf(group3)).toBe(200);
    expect((await pagesRead(conn)) - before).toBe(2);
    conn.ack("1");
    const all = await chunks(conn, 5);
    expect(all.slice(1, -1).map(sizeOf)).toEqual([200, 200, 200]);
    expect(all.at(-1)?.values).toEqual([
      { kind: "synchronized", sequence: CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events },
    ]);
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
    // every page of the replay's event log (600 positions, pages of 500), before the one chunk
    expect((await pagesRead(conn)) - before).toBe(2);
  } finally {
    await conn.close();
  }
});
