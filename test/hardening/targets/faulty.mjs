// TEST AID: a small foreign target for the harness fault tests. It speaks the shared Effect RPC wire
// of test/support/rpc-target.mjs well enough to pass the harness's warm-up session, then misbehaves
// in ONE way from its second subscription on:
//   --fault sigkill        sends the first chunk, then kills itself with SIGKILL (mid catch-up)
//   --fault no-marker      sends the snapshot chunk, then never the completion marker
//   --fault close-mid-chunk writes half of a chunk frame, then drops the TCP connection
//   --fault defect         answers the subscription with a Defect
//   --fault none           behaves (a control)
// Usage: node faulty.mjs --port PORT --fault KIND
import { cliArg, serveRpcTarget } from "../../support/rpc-target.mjs";

const port = Number(cliArg("port", "0"));
const fault = cliArg("fault", "none");
const FAULTS = ["sigkill", "no-marker", "close-mid-chunk", "defect", "none"];
if (!FAULTS.includes(fault)) {
  process.stderr.write(`faulty target: --fault must be one of ${FAULTS.join(", ")} (got ${fault})\n`);
  process.exit(2);
}

const SEQ = { cursor: 10, latest: 20 };
let subscriptions = 0;

serveRpcTarget({
  port,
  banner: `faulty target (${fault}) listening on ${port}`,
  config: { name: "faulty", fixture: { cursorSequence: SEQ.cursor, latestSequence: SEQ.latest } },
  interruptCause: { _tag: "Interrupt", fiberId: { _tag: "None" } },
  connection: (ws, send) => {
    /** Chunks waiting for the previous chunk's Ack, per request id. */
    const queues = new Map();
    const sendNext = (id) => {
      const q = queues.get(id);
      if (!q) return;
      const next = q.shift();
      if (next === undefined) {
        queues.delete(id);
        send({ _tag: "Exit", requestId: id, exit: { _tag: "Success", value: null } });
      } else if (next === "HANG") {
        // never send anything more for this request
      } else send({ _tag: "Chunk", requestId: id, values: next });
    };
    return {
      onAck: sendNext,
      onInterrupt: (id) => queues.delete(id),
      onSubscribe(id) {
        subscriptions++;
        const misbehave = subscriptions >= 2 && fault !== "none";
        const snapshot = {
          kind: "snapshot",
          snapshotSequence: SEQ.latest,
          projects: [{ id: "p1", title: "x".repeat(2000) }],
        };
        const marker = { kind: "synchronized", sequence: SEQ.latest };
        if (misbehave && fault === "defect")
          return send({ _tag: "Defect", defect: "faulty target: deliberate defect" });
        if (misbehave && fault === "close-mid-chunk") {
          const frame = JSON.stringify({ _tag: "Chunk", requestId: id, values: [snapshot] });
          // A text frame header announcing the whole payload, then only half of it, then a TCP drop.
          const payload = Buffer.from(frame);
          const header = Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
          const socket = ws._socket;
          socket.write(Buffer.concat([header, payload.subarray(0, payload.length >> 1)]), () => socket.destroy());
          return;
        }
        if (misbehave && fault === "sigkill") {
          // Die once the chunk left: the client is then mid catch-up, waiting for the marker.
          ws.send(JSON.stringify({ _tag: "Chunk", requestId: id, values: [snapshot] }), () =>
            process.kill(process.pid, "SIGKILL"),
          );
          return;
        }
        queues.set(id, misbehave && fault === "no-marker" ? ["HANG"] : [[marker]]);
        send({ _tag: "Chunk", requestId: id, values: [snapshot] });
      },
    };
  },
});
