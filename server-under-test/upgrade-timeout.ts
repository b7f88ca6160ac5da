// The bound on a connection's HTTP request headers (the WebSocket upgrade), counted against the
// client, never against this server's own stalls. Node's headersTimeout runs from the moment the
// connection is accepted in JavaScript and is checked from a timer: when the event loop was blocked
// (hundreds of catch-ups being built at once block it for many seconds), the first thing to run
// afterwards is the timers phase, so the check answered 408 to connections whose upgrade had arrived
// in time and sat unread in the kernel, to be read in the poll phase that follows.
// Here a check that runs late (the loop was stalled) gives the client more time instead; an on-time
// check decides only after setImmediate, i.e. after the loop has polled and read what arrived.
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";

const RESPONSE = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

/** A check later than this (ms) means the server, not the client, was stalled. */
export function stallSlackMs(timeoutMs: number): number {
  return Math.max(50, Math.round(timeoutMs / 10));
}

/**
 * Closes (408) each connection of `server` whose request headers are not complete within timeoutMs
 * of responsive server time. Node's own headersTimeout and requestTimeout must be off (0).
 */
export function boundRequestHeaders(server: Server, timeoutMs: number): void {
  const complete = new WeakSet<Socket>();
  const done = (req: IncomingMessage) => {
    complete.add(req.socket);
  };
  server.on("request", done);
  server.on("upgrade", done);
  const slack = stallSlackMs(timeoutMs);
  const arm = (socket: Socket, ms: number) => {
    const due = performance.now() + ms;
    const timer = setTimeout(() => {
      socket.off("close", clear);
      if (complete.has(socket) || socket.destroyed) return;
      // Late: the loop was stalled and may not have read what the client sent. Give it the slack again.
      if (performance.now() - due > slack) return arm(socket, slack);
      setImmediate(() => {
        if (complete.has(socket) || socket.destroyed) return;
        socket.end(RESPONSE, () => socket.destroy());
      });
    }, ms);
    const clear = () => clearTimeout(timer);
    socket.once("close", clear);
  };
  server.on("connection", (socket: Socket) => arm(socket, timeoutMs));
}
