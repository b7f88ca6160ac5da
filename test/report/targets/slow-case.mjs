// TEST AID: a small foreign target (the shared Effect RPC wire of test/support/rpc-target.mjs) that
// answers every shell subscription after a fixed delay with ONE chunk carrying a snapshot item and the
// completion marker. `--slow-after SEQ --extra-ms N` adds N ms to the subscriptions resuming after SEQ
// (the fixture's cursor: the resume-many case only), so a run can regress one latency case and no other.
// Usage: node slow-case.mjs --port PORT [--base-ms 120] [--slow-after SEQ --extra-ms N]
import { cliArg, serveRpcTarget, wholeCatchUp } from "../../support/rpc-target.mjs";

const port = Number(cliArg("port", "0"));
const baseMs = Number(cliArg("base-ms", "120"));
const slowAfter = cliArg("slow-after", null);
const extraMs = Number(cliArg("extra-ms", "0"));

serveRpcTarget({
  port,
  banner: `slow-case target listening on ${port}`,
  config: { name: "slow-case" },
  // One chunk per subscription: nothing waits on its Ack.
  connection: (ws, send) => {
    const timers = new Set();
    ws.on("close", () => {
      for (const t of timers) clearTimeout(t);
    });
    return {
      onSubscribe(id, msg) {
        const after = msg.payload?.afterSequence;
        const slow = slowAfter !== null && after !== undefined && String(after) === slowAfter;
        const timer = setTimeout(
          () => {
            timers.delete(timer);
            send(wholeCatchUp(id));
          },
          baseMs + (slow ? extraMs : 0),
        );
        timers.add(timer);
      },
    };
  },
});
