// The shared client's session behaviour against a scripted server speaking each dialect: one Ack
// per chunk after the delay, the probe while the first ACK is held, completion by marker or Exit,
// the completion hold, and every failure ending ok:false with a reason (never hanging).
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runSession, type SessionOptions } from "../../scenarios/lib/session.js";
import { type Dialect, effect3, effect4 } from "./support/dialects.js";
import { type ScriptedConnection, type ScriptedServer, scriptedServer } from "./support/scripted-server.js";

let server: ScriptedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function session(url: string, extra: Partial<SessionOptions> = {}) {
  const phases: Array<[string, number]> = [];
  const result = runSession({
    WebSocket,
    now: () => performance.now(),
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (h) => clearTimeout(h),
    url,
    token: "t0ken",
    subscribePayload: { afterSequence: 5, requestCompletionMarker: true },
    onPhase: (name, t) => phases.push([name, t]),
    timeoutMs: 5_000,
    ...extra,
  });
  return { result, phases };
}

/** Expects the next client message to be an Ack for request 1; returns when it arrived. */
async function expectAck(conn: ScriptedConnection): Promise<number> {
  expect(await conn.next()).toEqual({ _tag: "Ack", requestId: "1" });
  return conn.arrivals.at(-1) ?? Number.NaN;
}

describe.each([effect3, effect4])("runSession, $name dialect", (d: Dialect) => {
  it("ACKs each chunk once after the delay, probes while the first ACK is held, stops at the marker", async () => {
    const frames = [
      d.chunk("1", [{ kind: "resume", fromSequence: 5, toSequence: 7 }]),
      d.chunk("1", [
        { kind: "project.updated", sequence: 6, title: "Démarrer → ✓" },
        { kind: "project.updated", sequence: 7, title: "😀" },
      ]),
      d.chunk("1", [{ kind: "synchronized", sequence: 7 }]),
    ];
    let acks = 0;
    let markerAckGap = 0;
    const ackGaps: number[] = [];
    server = await scriptedServer(async (conn) => {
      expect(conn.request.headers.authorization).toBe("Bearer t0ken");
      expect(await conn.next()).toEqual({
        _tag: "Request",
        id: "1",
        tag: "orchestration.subscribeShell",
        payload: { afterSequence: 5, requestCompletionMarker: true },
        headers: [],
      });
      conn.send(frames[0] as string);
      const sentFirst = performance.now();
      // The probe goes out before the first chunk's ACK.
      expect(await conn.next()).toEqual({
        _tag: "Request",
        id: "2",
        tag: "server.getConfig",
        payload: {},
        headers: [],
      });
      conn.send(d.success("2", { name: "x" }));
      ackGaps.push((await expectAck(conn)) - sentFirst);
      acks++;
      conn.send(frames[1] as string);
      const sentSecond = performance.now();
      ackGaps.push((await expectAck(conn)) - sentSecond);
      acks++;
      conn.send(frames[2] as string);
      const sentMarker = performance.now();
      // The completion chunk is ACKed after the same delay, then the client closes.
      markerAckGap = (await expectAck(conn)) - sentMarker;
      acks++;
      await conn.closed;
      expect(conn.unread()).toBe(0);
    });
    const { result, phases } = session(server.url, { ackDelayMs: 60 });
    const r = await result;
    await server.script;
    expect(r).toMatchObject({ ok: true, error: null, chunks: 3, values: 4 });
    expect(r.bytes).toBe(frames.reduce((n, f) => n + Buffer.byteLength(f), 0));
    expect(acks).toBe(3);
    for (const gap of [...ackGaps, markerAckGap]) expect(gap).toBeGreaterThanOrEqual(55);
    expect(r.probeMs).not.toBeNull();
    expect(r.firstChunkMs).not.toBeNull();
    expect(r.completionMs).toBeGreaterThanOrEqual(r.firstChunkMs ?? Number.POSITIVE_INFINITY);
    // acknowledged = marker received + the ACK delay (the timer stops when the marker's ACK is sent)
    expect(r.acknowledgedMs).toBeGreaterThanOrEqual((r.completionMs ?? Number.POSITIVE_INFINITY) + 55);
    const at = new Map(phases);
    expect(r.acknowledgedMs).toBeLessThanOrEqual((at.get("close") ?? 0) - (at.get("open") ?? 0));
    expect(phases.map(([name]) => name)).toEqual(["connect", "open", "first-chunk", "completion", "close"]);
  });

  it("times the first chunk's ACK: its delay after the first chunk, before the next chunk can come", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.chunk("1", [{ kind: "snapshot" }]));
      await expectAck(conn);
      // The next chunk only after the first ACK, as an ACK-gated server sends it.
      conn.send(d.chunk("1", [{ kind: "synchronized" }]));
      await expectAck(conn);
      await conn.closed;
    });
    const r = await session(server.url, { ackDelayMs: 60, probe: null }).result;
    await server.script;
    expect(r).toMatchObject({ ok: true, chunks: 2 });
    const first = r.firstChunkMs ?? Number.NaN;
    expect(r.firstAckMs).toBeGreaterThanOrEqual(first + 55);
    expect(r.firstAckMs).toBeLessThan(r.completionMs ?? Number.NaN);
    expect(r.acknowledgedMs).toBeGreaterThan(r.firstAckMs ?? Number.NaN);
    // One chunk carrying the marker, held: its ACK is both the first and the marker's.
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.chunk("1", [{ kind: "snapshot" }, { kind: "synchronized" }]));
      await expectAck(conn);
      await conn.closed;
    });
    const one = await session(server.url, { holdMs: 80, probe: null }).result;
    await server.script;
    expect(one.firstAckMs).toBeCloseTo(one.acknowledgedMs ?? Number.NaN, 0);
  });

  it("completes on the stream's Exit when told to, after ACKing every chunk", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.chunk("1", [{ n: 1 }]));
      await expectAck(conn);
      conn.send(d.chunk("1", [{ n: 2 }, { n: 3 }]));
      await expectAck(conn);
      conn.send(d.success("1", undefined));
      await conn.closed;
      expect(conn.unread()).toBe(0);
    });
    const r = await session(server.url, { completion: "exit", probe: null }).result;
    await server.script;
    expect(r).toMatchObject({ ok: true, chunks: 2, values: 3, probeMs: null });
    expect(r.completionMs).not.toBeNull();
    // No chunk to ACK at an Exit: the last chunk's ACK already went out before it.
    expect(r.acknowledgedMs).toBe(r.completionMs);
  });

  it("holds the completion chunk's ACK for holdMs, then ACKs and closes", async () => {
    let held = 0;
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.chunk("1", [{ kind: "snapshot" }, { kind: "synchronized" }]));
      const sent = performance.now();
      held = (await expectAck(conn)) - sent;
      await conn.closed;
      expect(conn.unread()).toBe(0);
    });
    const { result, phases } = session(server.url, { holdMs: 80, probe: null });
    const r = await result;
    await server.script;
    expect(r).toMatchObject({ ok: true, chunks: 1, values: 2 });
    expect(held).toBeGreaterThanOrEqual(75);
    expect(r.acknowledgedMs).toBeGreaterThanOrEqual((r.completionMs ?? Number.POSITIVE_INFINITY) + 75);
    expect(phases.map(([name]) => name)).toEqual(["connect", "open", "first-chunk", "completion", "hold-end", "close"]);
  });

  it("fails with the tagged error of a failed Exit", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.fail("1", { _tag: "AuthorizationError", requiredScope: "orchestration:read", message: "no scope" }));
      await conn.closed;
    });
    const r = await session(server.url).result;
    expect(r).toMatchObject({ ok: false, chunks: 0, completionMs: null });
    expect(r.error).toBe("orchestration.subscribeShell failed: Fail: AuthorizationError: no scope");
  });

  it("fails when the probe dies", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.chunk("1", [{ kind: "resume" }]));
      await conn.next();
      conn.send(d.die("2", "boom"));
      await conn.closed;
    });
    const r = await session(server.url).result;
    expect(r.ok).toBe(false);
    expect(r.error).toBe("probe server.getConfig failed: Die: boom");
  });

  it("fails when the stream ends before the marker", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(d.chunk("1", [{ kind: "resume" }]));
      await expectAck(conn);
      conn.send(d.success("1", undefined));
      await conn.closed;
    });
    const r = await session(server.url, { probe: null }).result;
    expect(r).toMatchObject({ ok: false, chunks: 1 });
    expect(r.error).toMatch(/ended \(Exit Success after 1 chunks\) before the completion marker kind=synchronized/);
  });
});

describe("runSession failures", () => {
  it("reports a connection-level Defect (Effect 3's unknown tag)", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send({ _tag: "Defect", defect: "Unknown request tag: nope" });
      await conn.closed;
    });
    const r = await session(server.url, { subscribeTag: "nope" }).result;
    expect(r).toMatchObject({ ok: false, error: "server defect: Unknown request tag: nope" });
  });

  it("reports a bad frame", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send("<html>");
      await conn.closed;
    });
    const r = await session(server.url).result;
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^bad frame: frame is not JSON/);
  });

  it("reports a close before completion, with the code and what it waited for", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      conn.send(effect3.chunk("1", [{ kind: "resume" }]));
      await conn.next(); // the probe
      conn.socket.close(1011, "gone");
    });
    const r = await session(server.url).result;
    expect(r.ok).toBe(false);
    expect(r.error).toBe(
      "connection closed (code 1011, gone) while waiting for the completion marker kind=synchronized (1 chunks so far)",
    );
  });

  it("times out instead of hanging when the server never answers", async () => {
    server = await scriptedServer(async (conn) => {
      await conn.next();
      await conn.closed;
    });
    const r = await session(server.url, { timeoutMs: 300 }).result;
    expect(r).toMatchObject({ ok: false, chunks: 0 });
    expect(r.error).toBe(
      "timed out after 300 ms waiting for the completion marker kind=synchronized (0 chunks so far)",
    );
  });

  it("reports a refused upgrade (401)", async () => {
    server = await scriptedServer(async () => {}, { rejectUpgradeWith: 401 });
    const r = await session(server.url).result;
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^websocket error: .*401/);
  });

  it("reports a refused connection", async () => {
    const r = await session("ws://127.0.0.1:1/ws").result;
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^websocket error: .*ECONNREFUSED/);
  });

  it("puts the token in the query string when told to", async () => {
    let seen = "";
    server = await scriptedServer(async (conn) => {
      seen = conn.request.url ?? "";
      expect(conn.request.headers.authorization).toBeUndefined();
      await conn.next();
      conn.send(effect4.chunk("1", [{ kind: "synchronized" }]));
      await conn.closed;
    });
    const r = await session(server.url, { tokenIn: "query", token: "a b&c", probe: null }).result;
    await server.script;
    expect(r.ok).toBe(true);
    expect(seen).toBe("/ws?token=a%20b%26c");
  });
});
