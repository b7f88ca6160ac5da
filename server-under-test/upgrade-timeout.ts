// The bound on a connection's HTTP request headers (the WebSocket upgrade), counted against the
// client, never against this server's own stalls. Node's headersTimeout runs from the moment the
// connection is accepted in JavaScript and is checked from a timer: when the event loop was blocked
// (hundreds of catch-ups being built at once block it for many seconds), the first thing to run
// afterwards is the timers phase, so the check answered 408 to connections whose upgrade had arrived
// in time and sat unread in the kernel, to be read in the poll phase that follows.
// Here a check that runs late (the loop was stalled) gives the client more time instead; an on-time
// check decides only after setImmediate, i.e. after the loop has polled and read what arrived.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";

const RESPONSE = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/** A check later than this (ms) means the server, not the client, was stalled. */
function stallSlackMs(timeoutMs: number): number {
  return Math.max(50, Math.round(timeoutMs / 10));
}

/**
 * Closes (408) each connection of `server` whose request headers are not complete within timeoutMs
 * of responsive server time. Node's own headersTimeout and requestTimeout must be off (0).
 */
export function boundRequestHeaders(server: Server, timeoutMs: number): void {
  const complete = new WeakSet<Socket>();
  server.on("upgrade", (req: IncomingMessage) => {
    complete.add(req.socket);
    clear(req.socket);
  });
  // A plain request (a 401, a 404) may be followed by another on the same keep-alive connection:
  // its headers get the same bound, from the moment the response went out.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    complete.add(socket);
    res.once("finish", () => {
      if (socket.destroyed) return;
      complete.delete(socket);
      arm(socket, timeoutMs);
    });
  });
  const slack = stallSlackMs(timeoutMs);
  // One pending check per connection: re-arming replaces it.
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const clear = (socket: Socket) => clearTimeout(timers.get(socket));
  function arm(socket: Socket, ms: number): void {
    clear(socket);
    const due = performance.now() + ms;
    const timer = setTimeout(() => {
      timers.delete(socket);
      if (complete.has(socket) || socket.destroyed) return;
      // Late: the loop was stalled and may not have read what the client sent. Give it the slack again.
      if (performance.now() - due > slack) return arm(socket, slack);
      setImmediate(() => {
        if (complete.has(socket) || socket.destroyed) return;
        socket.end(RESPONSE, () => socket.destroy());
      });
    }, ms);
    timers.set(socket, timer);
  }
  server.on("connection", (socket: Socket) => {
    arm(socket, timeoutMs);
    socket.once("close", () => clear(socket));
  });
}
