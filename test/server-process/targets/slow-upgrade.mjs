// TEST AID: a foreign target that opens its port at once but answers WebSocket upgrades only after
// --upgrade-after-ms (or never, with --never), as a real server that still loads its state. Once it
// answers, it speaks just enough Effect RPC JSON for a session: the subscribe gets one chunk with a
// snapshot and the completion marker, then an Exit after the Ack; the probe gets a successful Exit.
// Usage: node slow-upgrade.mjs --port PORT (0: any; the port is printed) [--upgrade-after-ms MS | --never]
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const port = Number(arg("port", "0"));
const never = args.includes("--never");
const answerAt = Date.now() + Number(arg("upgrade-after-ms", "500"));

const wss = new WebSocketServer({ noServer: true });
const server = createServer((_req, res) => res.writeHead(426).end());
server.on("upgrade", (req, socket, head) => {
  // Too early: the request is read and never answered (the socket stays open), as seen on a real server.
  if (never || Date.now() < answerAt || !req.url?.startsWith("/ws")) return;
  wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws));
});
wss.on("connection", (ws) => {
  const send = (msg) => ws.send(JSON.stringify(msg));
  const exit = (id) => send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: null } });
  const streams = new Set();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    if (msg._tag === "Ping") return send({ _tag: "Pong" });
    if (msg._tag === "Ack" && streams.delete(msg.requestId)) return exit(msg.requestId);
    if (msg._tag !== "Request") return;
    if (msg.tag === "orchestration.subscribeShell") {
      streams.add(msg.id);
      return send({
        _tag: "Chunk",
        requestId: msg.id,
        values: [{ kind: "snapshot", snapshot: { snapshotSequence: 20, projects: [] } }, { kind: "synchronized" }],
      });
    }
    if (msg.tag === "server.getConfig") return exit(msg.id);
    send({ _tag: "Defect", defect: `Unknown request tag: ${msg.tag}` });
  });
});
server.listen(port, "127.0.0.1", () =>
  process.stderr.write(`slow-upgrade target listening on ${server.address().port}\n`),
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
