// A foreign target for --attribute's profiler: on "hold MB" its named function holdKnownBlock keeps MB
// MiB of V8 heap (arrays of 131,072 doubles: 1 MiB of elements each), then answers {"done":"hold"};
// on "churn MB" churnThrough allocates MB MiB that die at once. Prints {"ready":true} first. Exits
// when stdin closes.
import { createInterface } from "node:readline";

// Made before any profiling: each slice() is one new 1 MiB array of doubles and nothing else (an
// Array filled in place would first allocate elements of another kind, then replace them).
const ONE_MIB_OF_DOUBLES = new Array(131_072).fill(0.5);
let kept = [];
function holdKnownBlock(mib) {
  kept = [];
  for (let i = 0; i < mib; i++) kept.push(ONE_MIB_OF_DOUBLES.slice());
}
function churnThrough(mib) {
  let sum = 0;
  for (let i = 0; i < mib; i++) sum += ONE_MIB_OF_DOUBLES.slice().length;
  return sum;
}
const reply = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
createInterface({ input: process.stdin }).on("line", (line) => {
  const [cmd, n] = line.trim().split(/\s+/);
  if (cmd === "hold") {
    holdKnownBlock(Number(n));
    reply({ done: "hold" });
  } else if (cmd === "churn") {
    reply({ done: "churn", elements: churnThrough(Number(n)) });
  } else reply({ error: `unknown command ${line}` });
});
process.stdin.on("end", () => process.exit(0));
reply({ ready: true, pid: process.pid });
