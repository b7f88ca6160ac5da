// A stand-in server for measuring the storm driver's own capacity (bench:client): it speaks just
// enough of the wire protocol for a delayed-ACK session (a snapshot chunk, then after its ACK the
// completion-marker chunk; the stream then stays open; a unary call gets its Exit; Ping gets Pong),
// with almost no work per session and a listen backlog as large as the kernel allows, so 10,000
// sessions on 2 cores measure the driver, not a server that cannot accept or serve them in time.
// Run as a child: `node dist/scripts/selfbench/client-stub-target.js`; prints {"url"} on stdout;
// exits when its stdin closes (its parent went away).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

const SNAPSHOT = { kind: "snapshot", snapshot: { snapshotSequence: 1, projects: [], threads: [], updatedAt: 0 } };
const MARKER = { kind: "synchronized" };

function somaxconn(): number {
  try {
    return Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8").trim()) || 511;
  } catch {
    return 511;
  }
}

function serve(ws: WebSocket): void {
  // requestId of the open subscription -> chunks ACKed so far
  const streams = new Map<string, number>();
  ws.on("message", (data) => {
    let m: { _tag?: string; id?: string; tag?: string; requestId?: string };
    try {
      m = JSON.parse(String(data));
    } catch {
      return;
    }
    if (m._tag === "Ping") ws.send('{"_tag":"Pong"}');
    else if (m._tag === "Request" && typeof m.id === "string") {
      if (m.tag?.startsWith("orchestration.subscribe")) {
        streams.set(m.id, 0);
        ws.send(JSON.stringify({ _tag: "Chunk", requestId: m.id, values: [SNAPSHOT] }));
      } else {
        ws.send(JSON.stringify({ _tag: "Exit", requestId: m.id, exit: { _tag: "Success", value: {} } }));
      }
    } else if (m._tag === "Ack" && typeof m.requestId === "string" && streams.has(m.requestId)) {
      const acked = (streams.get(m.requestId) ?? 0) + 1;
      streams.set(m.requestId, acked);
      if (acked === 1) ws.send(JSON.stringify({ _tag: "Chunk", requestId: m.requestId, values: [MARKER] }));
    }
  });
  ws.on("error", () => {});
}

const http = createServer((_req, res) => {
  res.statusCode = 404;
  res.end();
});
const wss = new WebSocketServer({ server: http, path: "/ws", perMessageDeflate: false });
wss.on("connection", serve);
const backlog = somaxconn();
http.listen({ port: 0, host: "127.0.0.1", backlog }, () => {
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `ws://127.0.0.1:${port}/ws`, pid: process.pid, backlog })}\n`);
});
process.stdin
  .on("end", () => process.exit(0))
  .on("close", () => process.exit(0))
  .resume();
