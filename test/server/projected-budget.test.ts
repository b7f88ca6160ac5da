// --max-projected-bytes: a marked batched resume whose replay is projected to encode beyond the
// budget takes the streaming path (resume metadata, lazy pages of up to 512 items, the marker), so
// no frame carries the whole replay; a resume within the budget stays one chunk.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Frame, isExitFor, RawConnection, subscribeThroughCompletion } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let server: RunningServer;
const cursor = CHUNK_FIXTURE.projects;
const latest = CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events;
// one replayed project encodes to well over 256 bytes (its script alone is 256): one fits, 600 do not
const BUDGET = 20_000;

beforeAll(async () => {
  fixtures = tempFixtures();
  server = await startServer(fixtures.make("projected", CHUNK_FIXTURE), [
    "--delivery",
    "batched",
    "--max-projected-bytes",
    String(BUDGET),
    // groups cut by size alone, whatever the machine's load (a stall could otherwise close a window)
    "--replay-group-window-ms",
    "600000",
  ]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  fixtures?.cleanup();
});

it("getConfig reports the budget", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.request("1", "server.getConfig", {});
  const exit = (await conn.next(isExitFor("1"))) as Frame & { exit: { value: { limits: Record<string, unknown> } } };
  expect(exit.exit.value.limits.maxProjectedBytes).toBe(BUDGET);
  await conn.close();
});

it("a replay projected beyond the budget streams: metadata, 512, the rest, marker; no frame holds the replay", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  try {
    const { chunks, items } = await subscribeThroughCompletion(conn, "1", {
      afterSequence: cursor,
      requestCompletionMarker: true,
    });
    expect(chunks.map((c) => (c.values as unknown[]).length)).toEqual([1, 512, CHUNK_FIXTURE.projects - 512, 1]);
    expect(items.filter((i) => i.kind === "project.updated")).toHaveLength(CHUNK_FIXTURE.projects);
    expect(items.at(-1)).toEqual({ kind: "synchronized", sequence: latest });
  } finally {
    await conn.close();
  }
});

it("a replay within the budget stays one chunk", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  try {
    const { chunks } = await subscribeThroughCompletion(conn, "1", {
      afterSequence: latest - 1,
      requestCompletionMarker: true,
    });
    expect(chunks).toHaveLength(1);
  } finally {
    await conn.close();
  }
});
