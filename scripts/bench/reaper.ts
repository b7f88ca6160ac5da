// The reaper: a tiny watchdog beside each foreign target. It holds a pipe to the harness on stdin;
// when that pipe closes (the harness ended, even by SIGKILL) it kills the target: its process group,
// every descendant of the spawned pid it can still find, and the listening pid the harness sent it
// ("pid N" lines on the pipe) — a server started with `setsid` has left the group, so killing the
// group alone would miss it. SIGTERM, then SIGKILL 1 s later, so no target outlives the harness by
// more than about 2 s. SIGTERM from the harness dismisses it (the target was stopped normally).
// Usage: node reaper.js PGID   (the spawned pid is the group leader, so PGID is also the tree's root)
import { descendants } from "../sampler/procfs.js";

const pgid = Number(process.argv[2]);
if (!Number.isInteger(pgid) || pgid <= 1) {
  process.stderr.write(`reaper: PGID must be an integer > 1 (got ${JSON.stringify(process.argv[2])})\n`);
  process.exit(2);
}

/** Pids the harness told us about (the process that owns the listening socket). */
const recorded = new Set<number>();

/** Parses the harness's "pid N" lines; anything else is ignored. Returns the rest of an unfinished line. */
function readPidLines(buffer: string): string {
  const lines = buffer.split("\n");
  const rest = lines.pop() ?? "";
  for (const line of lines) {
    const m = /^pid (\d+)$/.exec(line.trim());
    if (m?.[1] && Number(m[1]) > 1) recorded.add(Number(m[1]));
  }
  return rest;
}

function signal(targets: number[], sig: NodeJS.Signals): boolean {
  let any = false;
  for (const pid of targets) {
    try {
      process.kill(pid, sig);
      any = true;
    } catch {
      // already gone
    }
  }
  return any;
}

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => undefined); // a terminal's Ctrl-C is the harness's to handle
process.stdin.on("error", () => undefined);
let pending = "";
process.stdin.setEncoding("utf8").on("data", (d: string) => {
  pending = readPidLines(pending + d);
});
process.stdin.on("close", () => {
  // Collect the tree before anything dies: once the wrapper is gone its children are re-parented.
  const pids = [...new Set([...recorded, ...descendants(pgid)])].filter((p) => p !== process.pid);
  const targets = [-pgid, ...pids];
  if (!signal(targets, "SIGTERM")) process.exit(0);
  setTimeout(() => {
    // Children forked during the grace period are caught here too.
    signal([...targets, ...descendants(pgid)], "SIGKILL");
    process.exit(0);
  }, 1000);
});
process.stdin.resume();
