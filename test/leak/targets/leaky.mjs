// TEST AID: a small foreign target that speaks just enough Effect RPC JSON over WebSocket (Request,
// Ack, Interrupt, Ping in; Chunk, Exit, Defect, Pong out) for the bench harness, answers every shell
// subscription at once with ONE chunk carrying a snapshot item and the completion marker, and keeps
// `--retain-kib K` KiB of JavaScript heap per subscription forever (an array of K * 128 doubles in a
// global list: on the V8 heap, unlike a Buffer whose bytes live outside it). K = 0 retains nothing.
// Usage: node leaky.mjs --port PORT [--retain-kib K]
import { WebSocketServer } from "ws";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const port = Number(arg("port", "0"));
const retainKib = Number(arg("retain-kib", "0"));
const retained = [];

const wss = new WebSocketServer({ host: "127.0.0.1", port, path: "/ws" });
wss.on("listening", () => process.stderr.write(`leaky target listening on ${port}, retaining ${retainKib} KiB\n`));
wss.on("connection", (ws) => {
  const send = (msg) => ws.send(JSON.stringify(msg));
  ws.on("message", (data) => {
    let msg;
    try {
      msg = JSON.parse(String(data));
    } catch {
      send({ _tag: "Defect", defect: "not JSON" });
      return;
    }
    if (msg._tag === "Ping") return send({ _tag: "Pong" });
    if (msg._tag === "Ack") return; // one chunk per subscription: nothing waits on its Ack
    if (msg._tag === "Interrupt") {
      return send({
        _tag: "Exit",
        requestId: msg.requestId,
        exit: { _tag: "Failure", cause: [{ _tag: "Interrupt" }] },
      });
    }
    if (msg._tag !== "Request") return;
    const id = msg.id;
    if (msg.tag === "server.getConfig") {
      return send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: { name: "leaky" } } });
    }
    if (msg.tag !== "orchestration.subscribeShell") {
      return send({ _tag: "Defect", defect: `Unknown request tag: ${msg.tag}` });
    }
    // 8 bytes per double: K * 128 doubles are K KiB of elements.
    if (retainKib > 0) retained.push(new Array(retainKib * 128).fill(0.5));
    const snapshot = { kind: "snapshot", snapshot: { snapshotSequence: 1, projects: [], threads: [] } };
    send({ _tag: "Chunk", requestId: id, values: [snapshot, { kind: "synchronized" }] });
  });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
