// A knob for `npm run bench:power`, preloaded into the bundled server (node --import=THIS main.js …):
// it injects a known regression into ONE case, so the harness's detection rate can be measured.
// Its own flags are taken out of process.argv before the server parses its own:
//   --power-after N      the case: shell subscriptions whose afterSequence is N (the fixture's cursor:
//                        the latency case resume-many, the memory cells' "memory" mode)
//   --power-delay-ms X   hold such a subscribe Request X ms before the server sees it
//   --power-hold-mib Y   allocate Y MiB of JS heap (touched, so RSS grows too) when such a Request
//                        arrives, and drop it when that socket closes (so it is live through catch-up)
// Without --power-after nothing is changed (the null). It patches `ws` (the server's WebSocket
// library) at its prototype: incoming messages are events emitted on the socket.
import WebSocket from "ws";

const knobs = { after: null, delayMs: 0, holdMib: 0 };
const FLAGS = { "--power-after": "after", "--power-delay-ms": "delayMs", "--power-hold-mib": "holdMib" };
for (let i = 2; i < process.argv.length; ) {
  const key = FLAGS[process.argv[i]];
  if (!key) {
    i++;
    continue;
  }
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`power-knobs: ${process.argv[i]} needs a number >= 0, got ${process.argv[i + 1]}\n`);
    process.exit(2);
  }
  knobs[key] = value;
  process.argv.splice(i, 2);
}

/** The afterSequence of a subscribe Request in this frame, or undefined. */
function afterSequenceOf(data) {
  const text = String(data);
  if (!text.includes("subscribeShell")) return undefined;
  try {
    const msg = JSON.parse(text);
    return msg._tag === "Request" ? msg.payload?.afterSequence : undefined;
  } catch {
    return undefined;
  }
}

if (knobs.after !== null && (knobs.delayMs > 0 || knobs.holdMib > 0)) {
  const held = new Map();
  let intercepted = false;
  const emit = WebSocket.prototype.emit;
  WebSocket.prototype.emit = function (event, ...args) {
    if (event === "close") held.delete(this);
    if (event !== "message" || afterSequenceOf(args[0]) !== knobs.after) return emit.call(this, event, ...args);
    // Once, so a run (and a test) can see the knob reached the server's own WebSocket class.
    if (!intercepted) process.stderr.write(`power-knobs: intercepted a subscribe after ${knobs.after}\n`);
    intercepted = true;
    if (knobs.holdMib > 0) {
      // 8 bytes per small-integer element: Y MiB of V8 heap, every page written, in one block. What
      // that does to the sampled peak is V8's to decide (report it as measured): in 1 KiB x 1 resume
      // 1.42 MiB raised the peak by 1.4 MiB, 2.84 MiB lowered it by 0.3 MiB (the block set off an
      // earlier full GC), and the same 2.84 MiB in 64 KiB pieces raised it by 6 MiB.
      const block = new Array(Math.round((knobs.holdMib * 1024 * 1024) / 8)).fill(0);
      held.set(this, [...(held.get(this) ?? []), block]);
    }
    if (knobs.delayMs > 0) {
      setTimeout(() => emit.call(this, event, ...args), knobs.delayMs);
      return true;
    }
    return emit.call(this, event, ...args);
  };
  process.stderr.write(`power-knobs: ${JSON.stringify(knobs)}\n`);
}
