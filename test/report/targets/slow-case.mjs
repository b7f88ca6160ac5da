// TEST AID: a small foreign target that speaks just enough Effect RPC JSON over WebSocket (Request,
// Ack, Interrupt, Ping in; Chunk, Exit, Defect, Pong out) for the bench harness, and answers every
// shell subscription after a fixed delay with ONE chunk carrying a snapshot item and the completion
// marker. `--slow-after SEQ --extra-ms N` adds N ms to the subscriptions resuming after SEQ (the
// fixture's cursor: the resume-many case only), so a run can regress one latency case and no other.
// Usage: node slow-case.mjs --port PORT [--base-ms 120] [--slow-after SEQ --extra-ms N]
import { WebSocketServer } from "ws";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const port = Number(arg("port", "0"));
const baseMs = Number(arg("base-ms", "120"));
const slowAfter = arg("slow-after", null);
const extraMs = Number(arg("extra-ms", "0"));

const wss = new WebSocketServer({ host: "127.0.0.1", port, path: "/ws" });
wss.on("listening", () => process.stderr.write(`slow-case target listening on ${port}\n`));
wss.on("connection", (ws) => {
  const timers = new Set();
  ws.on("close", () => {
    for (const t of timers) clearTimeout(t);
  });
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
      return send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: { name: "slow-case" } } });
    }
    if (msg.tag !== "orchestration.subscribeShell") {
      return send({ _tag: "Defect", defect: `Unknown request tag: ${msg.tag}` });
    }
    const after = msg.payload?.afterSequence;
    const slow = slowAfter !== null && after !== undefined && String(after) === slowAfter;
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        const snapshot = { kind: "snapshot", snapshot: { snapshotSequence: 1, projects: [], threads: [] } };
        send({ _tag: "Chunk", requestId: id, values: [snapshot, { kind: "synchronized" }] });
      },
      baseMs + (slow ? extraMs : 0),
    );
    timers.add(timer);
  });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
