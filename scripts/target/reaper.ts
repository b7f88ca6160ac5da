// The reaper: a tiny watchdog beside each process the harness starts. It holds a pipe to the harness
// on stdin; when that pipe closes (the harness ended, even by SIGKILL) it stops the process: its
// process group, every descendant of the spawned pid, and the pids the harness named ("pid N" lines
// on the pipe; a server started with `setsid` has left the group). SIGTERM first, so a wrapper's
// cleanup trap runs, then SIGKILL once the grace period is spent; it exits as soon as nothing is left.
// SIGTERM from the harness dismisses it (the process was stopped normally).
// Usage: node reaper.js PGID GRACE_MS   (the spawned pid leads its group, so PGID is also the tree's root)
import { descendants, isAlive } from "../sampler/procfs.js";
import { groupMembers, signalAll } from "./group.js";

const pgid = Number(process.argv[2]);
const graceMs = Number(process.argv[3] ?? 5000);
if (!Number.isInteger(pgid) || pgid <= 1 || !Number.isInteger(graceMs) || graceMs < 0) {
  process.stderr.write(`reaper: usage: node reaper.js PGID GRACE_MS (got ${JSON.stringify(process.argv.slice(2))})\n`);
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

/** Everything of the target still alive: the group, the tree below its leader, the recorded pids. */
function left(known: Set<number>): number[] {
  for (const p of [...groupMembers(pgid), ...descendants(pgid)]) known.add(p);
  known.delete(process.pid);
  return [...known].filter(isAlive);
}

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => undefined); // a terminal's Ctrl-C is the harness's to handle
process.stdin.on("error", () => undefined);
let pending = "";
process.stdin.setEncoding("utf8").on("data", (d: string) => {
  pending = readPidLines(pending + d);
});
process.stdin.on("close", () => {
  // Collect the tree before anything dies: once the leader is gone its children are re-parented.
  const known = new Set<number>([pgid, ...recorded]);
  if (left(known).length === 0) process.exit(0);
  signalAll(pgid, known, "SIGTERM");
  const killAt = Date.now() + graceMs;
  const poll = setInterval(() => {
    const alive = left(known);
    if (alive.length === 0) process.exit(0);
    if (Date.now() >= killAt) {
      signalAll(pgid, alive, "SIGKILL");
      clearInterval(poll);
      // Children forked during the grace period are caught by the group and tree scans above.
      setTimeout(() => {
        signalAll(pgid, left(known), "SIGKILL");
        process.exit(0);
      }, 100);
    }
  }, 50);
});
process.stdin.resume();
