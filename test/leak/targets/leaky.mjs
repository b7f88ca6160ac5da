// TEST AID: a small foreign target (the shared Effect RPC wire of test/support/rpc-target.mjs) that
// answers every shell subscription at once with ONE chunk carrying a snapshot item and the completion
// marker, and keeps `--retain-kib K` KiB of JavaScript heap per subscription forever (an array of
// K * 128 doubles in a global list: on the V8 heap, unlike a Buffer whose bytes live outside it).
// K = 0 retains nothing.
// Usage: node leaky.mjs --port PORT [--retain-kib K]
import { cliArg, serveRpcTarget, wholeCatchUp } from "../../support/rpc-target.mjs";

const port = Number(cliArg("port", "0"));
const retainKib = Number(cliArg("retain-kib", "0"));
const retained = [];

serveRpcTarget({
  port,
  banner: `leaky target listening on ${port}, retaining ${retainKib} KiB`,
  config: { name: "leaky" },
  // One chunk per subscription: nothing waits on its Ack.
  connection: (_ws, send) => ({
    onSubscribe(id) {
      // 8 bytes per double: K * 128 doubles are K KiB of elements.
      if (retainKib > 0) retained.push(new Array(retainKib * 128).fill(0.5));
      send(wholeCatchUp(id));
    },
  }),
});
