// Under Node (the harness's driver, on `ws`), a session that times out while still connecting
// aborts its dial: k6 cannot (its close() on a CONNECTING socket would hang), Node can, so a harness
// run does not keep a half-open dial alive after the session has ended.
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runSession } from "../../scenarios/lib/session.js";

describe("runSession on ws, timing out while CONNECTING", () => {
  it("ends the session and aborts the pending dial", async () => {
    let accepted: (s: Socket) => void = () => {};
    const socketArrived = new Promise<Socket>((resolve) => {
      accepted = resolve;
    });
    // Accepts TCP, never answers the upgrade.
    const held = new Set<Socket>();
    const server = createServer((s) => {
      held.add(s);
      s.on("error", () => {});
      // Reading (and discarding the upgrade request) lets the server see the client's end.
      s.resume();
      accepted(s);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const result = await runSession({
        WebSocket,
        now: () => performance.now(),
        setTimeout: (fn, ms) => setTimeout(fn, ms),
        clearTimeout: (h) => clearTimeout(h),
        url: `ws://127.0.0.1:${port}/ws`,
        timeoutMs: 100,
      });
      expect(result.error).toMatch(/timed out after 100 ms waiting for the connection to open/);
      const socket = await socketArrived;
      // The client's side of the TCP connection goes away (ws terminate), rather than waiting forever.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the pending dial was not aborted within 10 s")), 10_000);
        if (socket.destroyed || socket.readableEnded) {
          clearTimeout(timer);
          resolve();
          return;
        }
        socket.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    } finally {
      // close() waits for open connections: a still-open one would hang here instead of failing above.
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
