// A controllable Node target for the sampler's tests and benchmark, run as a real child process.
// Listens on 127.0.0.1:PORT (argv[2], default 0 = any free port) and prints one JSON ready line
// {"pid","port"} on stdout. Commands arrive as lines on stdin; each answers with one JSON line:
//   block MS   busy-loop the event loop for MS ms  -> {"started":"block","ms"} then
//              {"done":"block","ms","tookMs","from","to"} (from/to as for native)
//   native MS  block the thread for about MS ms in ONE native call (crypto.pbkdf2Sync, calibrated just
//              before), where the inspector cannot answer -> {"started":"native"} then
//              {"done":"native","ms" (asked),"tookMs","cpuMs" (measured),"from","to" (process.hrtime.bigint()
//              just before and after the call, as decimal strings)}
//   alloc N    allocate an N-byte buffer and touch every page -> {"started":"alloc"} then {"done":"alloc","bytes"}
//   heap MB    keep about MB MiB of small JS objects on the V8 heap -> {"done":"heap","entries"}
//   free       drop the buffer and the objects             -> {"done":"free"}
//   gc         a full GC, when run with --expose-gc        -> {"done":"gc","exposed"}
//   work MS    count JSON round-trips for MS ms, yielding every 5 ms -> {"done":"work","ops","ms","cpuMs"}
//   exit CODE  exit with CODE
import { pbkdf2Sync } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const port = Number(process.argv[2] ?? 0);
let held = null;
let objects = null;
const reply = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

const server = createServer((_req, res) => res.end("ok"));
server.listen(port, "127.0.0.1", () => reply({ pid: process.pid, port: server.address().port }));

const doc = { id: 1, kind: "project.updated", title: "x".repeat(200), tags: ["a", "b", "c"], n: [1, 2, 3, 4, 5] };

// pbkdf2 iterations per wall-ms, measured again right before every block (a shared machine's load
// changes), so the block lasts about MS ms of wall time; the reply says how long it really took.
// A JavaScript loop or Atomics.wait would not do: V8 serves inspector messages inside both; inside
// pbkdf2Sync no JavaScript runs.
function nativeBlock(ms) {
  const probe = 20_000;
  const t0 = performance.now();
  pbkdf2Sync("catchup-bench", "salt", probe, 32, "sha256");
  const iterationsPerMs = probe / Math.max(0.1, performance.now() - t0);
  const iterations = Math.max(1, Math.round(iterationsPerMs * ms));
  reply({ started: "native", ms });
  // hrtime is CLOCK_MONOTONIC, shared by every process on the machine: a harness can place its own
  // samples inside [from, to] exactly.
  const cpu0 = process.cpuUsage();
  const from = process.hrtime.bigint();
  pbkdf2Sync("catchup-bench", "salt", iterations, 32, "sha256");
  const to = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  reply({
    done: "native",
    ms,
    tookMs: Number(to - from) / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1000,
    from: String(from),
    to: String(to),
  });
}

function work(ms) {
  const end = performance.now() + ms;
  const cpu0 = process.cpuUsage();
  let ops = 0;
  const slice = () => {
    const sliceEnd = Math.min(end, performance.now() + 5);
    while (performance.now() < sliceEnd) {
      JSON.parse(JSON.stringify(doc));
      ops++;
    }
    if (performance.now() < end) setImmediate(slice);
    else {
      const cpu = process.cpuUsage(cpu0);
      reply({ done: "work", ops, ms, cpuMs: (cpu.user + cpu.system) / 1000 });
    }
  };
  slice();
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const [cmd, arg] = line.trim().split(/\s+/);
  const n = Number(arg);
  if (cmd === "block") {
    reply({ started: "block", ms: n }); // stdout to a pipe is synchronous: this line is out before the loop
    const from = process.hrtime.bigint();
    const end = performance.now() + n;
    while (performance.now() < end) {
      // the point: nothing else runs on this thread
    }
    const to = process.hrtime.bigint();
    reply({ done: "block", ms: n, tookMs: Number(to - from) / 1e6, from: String(from), to: String(to) });
  } else if (cmd === "native") {
    nativeBlock(n);
  } else if (cmd === "alloc") {
    reply({ started: "alloc", bytes: n }); // then native code fills it: no JS runs, no inspector answers
    held = Buffer.alloc(n, 1); // fill writes every page, so all of it becomes resident
    reply({ done: "alloc", bytes: held.length });
  } else if (cmd === "heap") {
    // 1 KiB per entry: an array of 128 unboxed doubles (on the V8 heap, not external memory).
    objects = Array.from({ length: n * 1024 }, (_, i) => new Array(128).fill(i + 0.5));
    reply({ done: "heap", entries: objects.length });
  } else if (cmd === "free") {
    held = null;
    objects = null;
    reply({ done: "free" });
  } else if (cmd === "gc") {
    globalThis.gc?.(); // only with --expose-gc
    reply({ done: "gc", exposed: typeof globalThis.gc === "function" });
  } else if (cmd === "work") {
    work(n);
  } else if (cmd === "exit") {
    process.exit(n);
  } else {
    reply({ error: `unknown command ${line}` });
  }
});
// Ends with its parent: stdin closes when the harness goes away.
process.stdin.on("end", () => process.exit(0));
