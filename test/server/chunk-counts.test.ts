// Chunk counts through completion, legacy vs batched, over a real loopback socket, with the default
// (reference) item shapes: a cold snapshot is two snapshot items, a resume opens with one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawConnection, subscribeThroughCompletion } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { CHUNK_FIXTURE, type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let db: string;
const servers: Record<string, RunningServer> = {};

beforeAll(async () => {
  fixtures = tempFixtures();
  db = fixtures.make("chunks", CHUNK_FIXTURE);
  const [legacy, batched] = await Promise.all([
    // a group window far longer than any stall of a loaded machine: legacy's replay groups are then
    // cut by size alone, so the counts below do not depend on load
    startServer(db, ["--delivery", "legacy", "--replay-group-window-ms", "600000"]),
    startServer(db, ["--delivery", "batched"]),
  ]);
  servers.legacy = legacy;
  servers.batched = batched;
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  fixtures?.cleanup();
});

const cursor = CHUNK_FIXTURE.projects;
const latest = CHUNK_FIXTURE.projects + CHUNK_FIXTURE.events;
const cases = [
  { name: "snapshot", payload: {}, legacy: 2, first: "snapshot" },
  { name: "resume, no new events", payload: { afterSequence: latest }, legacy: 2, first: "snapshot" },
  { name: "resume, one event", payload: { afterSequence: latest - 1 }, legacy: 3, first: "snapshot" },
  { name: "resume, 1,000 events", payload: { afterSequence: cursor }, legacy: 4, first: "snapshot" },
];

describe.each([
  ["legacy", (c: (typeof cases)[number]) => c.legacy],
  ["batched", () => 1],
] as const)("%s delivery", (strategy, expected) => {
  it.each(cases)("$name: exact chunk count through the completion marker", async (c) => {
    const server = servers[strategy] as RunningServer;
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    try {
      const { chunks, items } = await subscribeThroughCompletion(conn, "1", c.payload);
      expect(chunks).toHaveLength(expected(c));
      expect(items[0]?.kind).toBe(c.first);
      expect(items.at(-1)).toEqual({ kind: "synchronized", sequence: latest });
      const replayed = items.filter((i) => i.kind === "project.updated");
      if (c.name === "resume, 1,000 events") {
        // coalesced per project: each touched project once, in sequence order
        expect(replayed).toHaveLength(CHUNK_FIXTURE.projects);
        const seqs = replayed.map((i) => i.sequence as number);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        expect(seqs.at(-1)).toBe(latest);
      }
      if (c.name === "resume, one event") expect(replayed.map((i) => i.sequence)).toEqual([latest]);
      if (c.name === "snapshot") {
        type Item = { snapshot: { snapshotSequence: number; projects: { scripts: unknown[] }[] } };
        for (const item of items.slice(0, 2) as Item[]) {
          expect(item.snapshot.snapshotSequence).toBe(latest);
          expect(item.snapshot.projects).toHaveLength(CHUNK_FIXTURE.projects);
          expect(item.snapshot.projects[0]?.scripts).toHaveLength(1);
        }
      }
    } finally {
      await conn.close();
    }
  });
});

describe("batched delivery without requestCompletionMarker", () => {
  it("keeps the legacy path for old clients: resume + 2 replay chunks, then live, no marker", async () => {
    const server = await startServer(db, ["--delivery", "batched"]);
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    try {
      conn.request("1", "orchestration.subscribeShell", { afterSequence: cursor });
      const sizes: number[] = [];
      let from = 0;
      for (let i = 0; i < 3; i++) {
        const chunk = await conn.next((f) => f._tag === "Chunk" && f.requestId === "1", 10_000, from);
        from = conn.frames.indexOf(chunk) + 1;
        sizes.push((chunk.values as unknown[]).length);
        conn.ack("1");
      }
      expect(sizes).toEqual([1, 512, CHUNK_FIXTURE.projects - 512]);
      // The next chunk must be the live event: a marker, had one been queued, would come first.
      conn.request("2", "orchestration.dispatchCommand", { type: "project.update", projectId: "x", title: "t" });
      await conn.next((f) => f._tag === "Exit" && f.requestId === "2", 10_000, from);
      const snapshot = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
      const first = await subscribeThroughCompletion(snapshot, "1", {});
      const projectId = (first.items[0] as { snapshot: { projects: { id: string }[] } }).snapshot.projects[0]?.id;
      await snapshot.close();
      conn.request("3", "orchestration.dispatchCommand", { type: "project.update", projectId, title: "renamed" });
      const live = await conn.next((f) => f._tag === "Chunk" && f.requestId === "1", 10_000, from);
      expect(live.values).toEqual([
        expect.objectContaining({
          kind: "project.updated",
          sequence: latest + 1,
          project: expect.objectContaining({ id: projectId, title: "renamed" }),
        }),
      ]);
    } finally {
      await conn.close();
      await server.stop();
    }
  });
});
