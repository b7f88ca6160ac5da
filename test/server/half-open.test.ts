// Half-open connections (silent TCP, half an HTTP upgrade) are closed after --upgrade-timeout-ms
// instead of Node's 60 s headersTimeout; established WebSockets outlive that bound.
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExitFor, RawConnection } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

/** Short bound for the test; the close must come well within CLOSE_WAIT_MS (Node's default is 60 s). */
const BOUND_MS = 400;
const CLOSE_WAIT_MS = 15_000;

let fixtures: TempFixtures;
let server: RunningServer;

beforeAll(async () => {
  fixtures = tempFixtures();
  const db = fixtures.make("half-open", { projects: 5, scriptBytes: 64, events: 5 });
  server = await startServer(db, ["--upgrade-timeout-ms", String(BOUND_MS)]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  fixtures?.cleanup();
});

async function rawSocket(): Promise<Socket> {
  const { port } = new URL(server.url);
  const socket = connect({ host: "127.0.0.1", port: Number(port) });
  await once(socket, "connect");
  return socket;
}

/** Resolves true when the server closes `socket`, false if it is still open after timeoutMs. */
function closedWithin(socket: Socket, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.on("data", () => {}).on("error", () => {}); // a 408 response or a reset both end it
  });
}

describe("--upgrade-timeout-ms", () => {
  it("closes a socket that sent half an upgrade, and one that sent nothing", async () => {
    const half = await rawSocket();
    half.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nAuthorization: Bearer ${DEV_TOKEN}\r\n`,
    ); // no Sec-WebSocket-* headers and no blank line: the request never completes
    const silent = await rawSocket();
    const [halfClosed, silentClosed] = await Promise.all([
      closedWithin(half, CLOSE_WAIT_MS),
      closedWithin(silent, CLOSE_WAIT_MS),
    ]);
    half.destroy();
    silent.destroy();
    expect(halfClosed).toBe(true);
    expect(silentClosed).toBe(true);
  }, 30_000);

  it("does not cut an established WebSocket: it still answers after a half-open socket was closed", async () => {
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    // The half-open socket starts after the WebSocket, so its close proves the bound has passed
    // for the WebSocket too (without a sleep).
    const half = await rawSocket();
    half.write("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    expect(await closedWithin(half, CLOSE_WAIT_MS)).toBe(true);
    half.destroy();
    expect(conn.ws.readyState).toBe(conn.ws.OPEN);
    conn.request("1", "server.getConfig", null);
    const exit = await conn.next(isExitFor("1"));
    expect(exit.exit).toMatchObject({ _tag: "Success" });
    await conn.close();
  }, 30_000);
});
