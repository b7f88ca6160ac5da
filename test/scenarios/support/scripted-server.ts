// Test support: a WebSocket server on loopback whose side of the conversation each test scripts,
// frame by frame, to play either Effect RPC dialect (recorded or hand-written frames).
import type { IncomingMessage } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

export interface ScriptedConnection {
  request: IncomingMessage;
  /** The next client message, parsed; rejects after timeoutMs or when the socket closes first. */
  next: (timeoutMs?: number) => Promise<Record<string, unknown>>;
  /** Resolves with the close code once the client has closed the socket. */
  closed: Promise<number>;
  send: (frame: string | object) => void;
  /** performance.now() when each client message arrived, in order. */
  arrivals: number[];
  /** Client messages received but not yet taken with next(). */
  unread: () => number;
  socket: WebSocket;
}

export interface ScriptedServer {
  url: string;
  /** Resolves when the first connection's script has finished; rejects with its assertion error. */
  script: Promise<void>;
  close: () => Promise<void>;
}

export async function scriptedServer(
  script: (conn: ScriptedConnection) => Promise<void>,
  options: { rejectUpgradeWith?: number } = {},
): Promise<ScriptedServer> {
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    verifyClient: options.rejectUpgradeWith
      ? (_info, cb) => cb(false, options.rejectUpgradeWith, "Unauthorized")
      : undefined,
  });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  let settle: (e?: unknown) => void = () => {};
  const scriptDone = new Promise<void>((resolve, reject) => {
    settle = (e) => (e === undefined ? resolve() : reject(e));
  });
  let first = true;
  wss.on("connection", (socket, request) => {
    if (!first) return;
    first = false;
    const inbox: Record<string, unknown>[] = [];
    const waiters: Array<{ resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
    const arrivals: number[] = [];
    let closedCode: number | null = null;
    const closed = new Promise<number>((resolve) =>
      socket.once("close", (code) => {
        closedCode = code;
        for (const w of waiters.splice(0)) w.reject(new Error(`client closed (code ${code}) while the script waited`));
        resolve(code);
      }),
    );
    socket.on("message", (data) => {
      arrivals.push(performance.now());
      const msg = JSON.parse(String(data)) as Record<string, unknown>;
      const w = waiters.shift();
      if (w) w.resolve(msg);
      else inbox.push(msg);
    });
    const next = (timeoutMs = 5_000) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const queued = inbox.shift();
        if (queued) return resolve(queued);
        if (closedCode !== null) return reject(new Error(`client closed (code ${closedCode}) before sending more`));
        const timer = setTimeout(() => reject(new Error(`no client message within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
      });
    const send = (frame: string | object) => socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
    script({ request, next, closed, send, arrivals, unread: () => inbox.length, socket }).then(
      () => settle(),
      (e) => settle(e),
    );
  });
  const address = wss.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    script: scriptDone,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}
