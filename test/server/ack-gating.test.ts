// ACK gating: the server writes the next chunk only after the client's Ack for the previous one.
import { afterAll, beforeAll, expect, it } from "vitest";
import { isChunkFor, isExitFor, RawConnection } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let server: RunningServer;

beforeAll(async () => {
  fixtures = tempFixtures();
  server = await startServer(fixtures.make("ack", CHUNK_FIXTURE), ["--delivery", "legacy"]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  fixtures?.cleanup();
});

it("no Ack, no next chunk: a unary call answers while the stream stays at one chunk", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.request("1", "orchestration.subscribeShell", {
    afterSequence: CHUNK_FIXTURE.projects,
    requestCompletionMarker: true,
  });
  await conn.next(isChunkFor("1"));
  // Several full round trips on the same socket, each answered after the first chunk was written.
  for (let i = 0; i < 5; i++) {
    conn.request(String(10 + i), "server.getConfig", null);
    await conn.next(isExitFor(String(10 + i)));
  }
  expect(conn.frames.filter(isChunkFor("1"))).toHaveLength(1);
  conn.ack("1");
  await conn.next((f) => isChunkFor("1")(f) && (f.values as unknown[]).length === 512);
  expect(conn.frames.filter(isChunkFor("1"))).toHaveLength(2);
  await conn.close();
});

it("a delayed Ack delays the next chunk: each chunk arrives after the Ack that released it", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  const ackSentAt: number[] = [];
  const chunkAt: number[] = [];
  conn.ws.on("message", () => chunkAt.push(performance.now()));
  conn.request("1", "orchestration.subscribeShell", {
    afterSequence: CHUNK_FIXTURE.projects,
    requestCompletionMarker: true,
  });
  let from = 0;
  for (let i = 0; i < 4; i++) {
    const chunk = await conn.next(isChunkFor("1"), 10_000, from);
    from = conn.frames.indexOf(chunk) + 1;
    if (i === 3) break;
    // hold the Ack, and show with a round trip that nothing else came meanwhile
    conn.send({ _tag: "Ping" });
    await conn.next((f) => f._tag === "Pong", 10_000, from);
    expect(conn.frames.filter(isChunkFor("1"))).toHaveLength(i + 1);
    ackSentAt.push(performance.now());
    conn.ack("1");
  }
  // the chunk after each Ack was received after that Ack was sent (order, not absolute timing)
  const chunkTimes = conn.frames
    .map((f, i) => ({ f, t: chunkAt[i] as number }))
    .filter(({ f }) => isChunkFor("1")(f))
    .map(({ t }) => t);
  for (let i = 0; i < 3; i++) expect(chunkTimes[i + 1]).toBeGreaterThanOrEqual(ackSentAt[i] as number);
  await conn.close();
});
