// Initial items are handed over once and released: after a large snapshot is delivered and a GC
// forced, the server's heap returns near its pre-subscribe level while the subscription stays live.
import { afterAll, beforeAll, expect, it } from "vitest";
import { Inspector } from "../support/inspector.js";
import { isChunkFor, isExitFor, RawConnection, subscribeThroughCompletion } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let db: string;
const fixture = { projects: 500, scriptBytes: 8192, events: 10 };

beforeAll(() => {
  fixtures = tempFixtures();
  db = fixtures.make("memory", fixture);
}, 60_000);

afterAll(() => fixtures?.cleanup());

it.each(["legacy", "batched"])(
  "%s: a delivered snapshot is collectable while the subscription is open",
  async (delivery) => {
    const server: RunningServer = await startServer(db, ["--delivery", delivery], 20_000, ["--inspect=127.0.0.1:0"]);
    const inspector = await Inspector.attach(server.stderr);
    try {
      // Warm-up: the first subscription loads code and fills schema caches; not part of the measure.
      const warm = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
      await subscribeThroughCompletion(warm, "1", {});
      await warm.close();
      const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
      const before = await inspector.heapAfterGc();
      const { chunks } = await subscribeThroughCompletion(conn, "1", {});
      conn.ack("1"); // ACK the marker's chunk too: the stream is now in its live phase
      const snapshotBytes = chunks.reduce((n, c) => n + JSON.stringify(c).length, 0);
      expect(snapshotBytes).toBeGreaterThan(fixture.projects * fixture.scriptBytes);
      // The subscription is still live: a round trip on its socket, then the heap.
      conn.request("2", "server.getConfig", null);
      await conn.next(isExitFor("2"));
      const after = await inspector.heapAfterGc();
      expect(conn.frames.filter(isChunkFor("1"))).toHaveLength(chunks.length);
      // Retaining the snapshot would keep at least its UTF-8 size (about 4 MB) alive.
      expect(after - before).toBeLessThan(snapshotBytes / 4);
      await conn.close();
    } finally {
      inspector.close();
      await server.stop();
    }
  },
);
