// TEST AID: a small foreign target written in TypeScript, run from source through the project's own
// ts-node (no build step). A plain `ws` server speaking just enough Effect RPC JSON for the harness:
// `server.getConfig` answers with the fixture's cursors, `orchestration.subscribeShell` streams a
// snapshot chunk, then (after its Ack) the completion marker, then (after that Ack) the Exit.
// Usage: node --import ./scripts/ts-node/register.mjs test/bench/targets/typescript-target.ts --port PORT
import { WebSocketServer } from "ws";

type Value = Record<string, unknown>;
type ClientMessage =
  | { _tag: "Request"; id: string; tag: string; payload?: unknown }
  | { _tag: "Ack"; requestId: string }
  | { _tag: "Interrupt"; requestId: string }
  | { _tag: "Ping" };

const args: readonly string[] = process.argv.slice(2);
const portIndex = args.indexOf("--port");
const port = Number(portIndex >= 0 ? args[portIndex + 1] : "0");
const SEQUENCE = { cursor: 10, latest: 20 } as const;

const wss = new WebSocketServer({ host: "127.0.0.1", port, path: "/ws" });
wss.on("listening", () => process.stderr.write(`typescript target listening on ${port}\n`));
wss.on("connection", (ws) => {
  /** Chunks still to send per request id, each after the previous chunk's Ack. */
  const pending = new Map<string, Value[][]>();
  const send = (message: Value): void => ws.send(JSON.stringify(message));
  const sendNext = (id: string): void => {
    const next = pending.get(id)?.shift();
    if (next !== undefined) send({ _tag: "Chunk", requestId: id, values: next });
    else if (pending.delete(id)) send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: null } });
  };
  ws.on("message", (data) => {
    let message: ClientMessage;
    try {
      message = JSON.parse(String(data)) as ClientMessage;
    } catch {
      send({ _tag: "Defect", defect: "not JSON" });
      return;
    }
    switch (message._tag) {
      case "Ping":
        send({ _tag: "Pong" });
        return;
      case "Ack":
        sendNext(message.requestId);
        return;
      case "Interrupt":
        pending.delete(message.requestId);
        return;
      case "Request":
        break;
      default:
        return;
    }
    if (message.tag === "server.getConfig") {
      const fixture = { cursorSequence: SEQUENCE.cursor, latestSequence: SEQUENCE.latest };
      send({ _tag: "Exit", requestId: message.id, exit: { _tag: "Success", value: { name: "ts-target", fixture } } });
      return;
    }
    if (message.tag !== "orchestration.subscribeShell") {
      send({ _tag: "Defect", defect: `Unknown request tag: ${message.tag}` });
      return;
    }
    const snapshot = { kind: "snapshot", snapshotSequence: SEQUENCE.latest, projects: [{ id: "p1", title: "t" }] };
    pending.set(message.id, [[{ kind: "synchronized", sequence: SEQUENCE.latest }]]);
    send({ _tag: "Chunk", requestId: message.id, values: [snapshot] });
  });
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
