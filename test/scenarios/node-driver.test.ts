// The Node driver runs concurrent delayed-ACK sessions through the shared client against the real
// bundled server, and its rows' chunk counts follow the delivery strategy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { runSessions } from "../../scripts/driver/node.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { smallFixture } from "./support/fixture.js";

const fixture = smallFixture();
const servers: Record<string, RunningServer> = {};

beforeAll(async () => {
  const [legacy, batched] = await Promise.all([
    startServer(fixture.path, ["--delivery", "legacy"]),
    startServer(fixture.path, ["--delivery", "batched"]),
  ]);
  servers.legacy = legacy;
  servers.batched = batched;
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  fixture.cleanup();
});

function cursors(server: RunningServer) {
  const meta = server.ready.fixture as { latestSequence: number; cursorSequence: number };
  return { snapshot: null, none: meta.latestSequence, one: meta.latestSequence - 1, many: meta.cursorSequence };
}

describe.each([
  ["legacy", { snapshot: 2, none: 2, one: 3, many: 4 }],
  ["batched", { snapshot: 1, none: 1, one: 1, many: 1 }],
])("runSessions against the %s server", (delivery, expected) => {
  it("runs 4 concurrent sessions with a 100 ms ACK delay; chunk counts match the strategy", async () => {
    const server = servers[delivery] as RunningServer;
    const counts: Record<string, number[]> = {};
    for (const [name, after] of Object.entries(cursors(server))) {
      const phases = new Map<number, string[]>();
      const before = Date.now();
      const {
        rows,
        loopLag,
        phases: marks,
      } = await runSessions({
        clients: 4,
        url: server.url,
        token: DEV_TOKEN,
        ackDelayMs: 100,
        subscribePayload: buildSubscribePayload(SUBSCRIBE_TEMPLATE, after),
        onPhase: (i, phase) => phases.set(i, [...(phases.get(i) ?? []), phase]),
      });
      expect(rows.map((r) => r.error)).toEqual([null, null, null, null]);
      for (const row of rows) {
        expect(row.probeMs).toBeGreaterThanOrEqual(0);
        expect(row.bytes).toBeGreaterThan(0);
        expect(row.completionMs).toBeGreaterThanOrEqual(row.firstChunkMs ?? Number.POSITIVE_INFINITY);
      }
      expect([...phases.keys()].sort()).toEqual([0, 1, 2, 3]);
      expect(phases.get(3)).toEqual(["connect", "open", "first-chunk", "completion", "close"]);
      // The wall-clock marks a k6 runner's summary carries, for lining the driver up with an agent's samples.
      expect(Object.entries(marks).map(([p, m]) => [p, m?.count ?? 0])).toEqual([
        ["connect", 4],
        ["first-chunk", 4],
        ["completion", 4],
        ["hold-end", 0],
        ["close", 4],
      ]);
      for (const m of Object.values(marks)) {
        if (m) expect(before <= m.first && m.first <= m.last && m.last <= Date.now()).toBe(true);
      }
      for (const v of Object.values(loopLag)) expect(Number.isFinite(v) && v >= 0).toBe(true);
      counts[name] = rows.map((r) => r.chunks);
    }
    expect(counts).toEqual(Object.fromEntries(Object.entries(expected).map(([name, n]) => [name, [n, n, n, n]])));
  });
});

describe("runSessions against the real server's failures", () => {
  it("returns ok:false rows with the server's reason for a cursor beyond the latest sequence", async () => {
    const server = servers.legacy as RunningServer;
    const { rows } = await runSessions({
      clients: 1,
      url: server.url,
      token: DEV_TOKEN,
      subscribePayload: buildSubscribePayload(SUBSCRIBE_TEMPLATE, 10_000_000),
    });
    expect(rows[0]).toMatchObject({ ok: false, chunks: 0 });
    expect(rows[0]?.error).toMatch(/orchestration\.subscribeShell failed: Fail: .*beyond the latest sequence/);
  });

  it("returns ok:false rows for an unknown token (401, no upgrade)", async () => {
    const server = servers.legacy as RunningServer;
    const { rows } = await runSessions({ clients: 2, url: server.url, token: "wrong", subscribePayload: {} });
    expect(rows.map((r) => r.ok)).toEqual([false, false]);
    expect(rows[0]?.error).toMatch(/401/);
  });
});
