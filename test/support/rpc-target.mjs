// TEST AID: the shared wire of the small foreign test targets. A plain `ws` server on 127.0.0.1 that
// speaks just enough Effect RPC JSON (Request, Ack, Interrupt, Ping in; Chunk, Exit, Defect, Pong out)
// for the bench harness: Pong to a Ping, an interrupted Exit to an Interrupt, `config` to
// server.getConfig, a Defect to anything else but a shell subscription, which the target answers.
// SIGINT and SIGTERM end the process.
import { WebSocketServer } from "ws";

const args = process.argv.slice(2);

/** The value after `--name` on the command line, or `fallback`. */
export function cliArg(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

/** ONE chunk carrying a snapshot item and the completion marker: a whole catch-up. */
export function wholeCatchUp(requestId) {
  const snapshot = { kind: "snapshot", snapshot: { snapshotSequence: 1, projects: [], threads: [] } };
  return { _tag: "Chunk", requestId, values: [snapshot, { kind: "synchronized" }] };
}

/**
 * Serves the target. `connection(ws, send)` runs once per socket and returns its handlers:
 * `onSubscribe(requestId, msg)` for a shell subscription, optional `onAck(requestId)` and
 * `onInterrupt(requestId)` (the interrupted Exit, with `interruptCause`, is sent after it).
 */
export function serveRpcTarget({ port, banner, config, interruptCause = [{ _tag: "Interrupt" }], connection }) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port, path: "/ws" });
  wss.on("listening", () => process.stderr.write(`${banner}\n`));
  wss.on("connection", (ws) => {
    const send = (msg) => ws.send(JSON.stringify(msg));
    const handlers = connection(ws, send);
    ws.on("message", (data) => {
      let msg;
      try {
        msg = JSON.parse(String(data));
      } catch {
        send({ _tag: "Defect", defect: "not JSON" });
        return;
      }
      if (msg._tag === "Ping") return send({ _tag: "Pong" });
      if (msg._tag === "Ack") return handlers.onAck?.(msg.requestId);
      if (msg._tag === "Interrupt") {
        handlers.onInterrupt?.(msg.requestId);
        return send({ _tag: "Exit", requestId: msg.requestId, exit: { _tag: "Failure", cause: interruptCause } });
      }
      if (msg._tag !== "Request") return;
      const id = msg.id;
      if (msg.tag === "server.getConfig") {
        return send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: config } });
      }
      if (msg.tag !== "orchestration.subscribeShell") {
        return send({ _tag: "Defect", defect: `Unknown request tag: ${msg.tag}` });
      }
      handlers.onSubscribe(id, msg);
    });
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
  return wss;
}
