// The reaper: a tiny watchdog beside each process the harness starts, started BEFORE that process. It
// holds a pipe to the harness on stdin; when that pipe closes (the harness ended, even by SIGKILL) it
// stops the process: its process group, every descendant of the spawned pid, the pids the harness
// named, and every process whose environment carries this reaper's token (the harness puts it in the
// spawned process's environment, so a process whose pid never reached us, or that left the group
// with `setsid`, is still found). SIGTERM first, so a wrapper's cleanup trap runs, then SIGKILL once
// the grace period is spent; it exits as soon as nothing is left. SIGTERM from the harness dismisses
// it (the process was stopped normally).
// Usage: node reaper.js TOKEN GRACE_MS; then on stdin "pgid N" (the spawned pid, which leads its
// group) and any number of "pid N" lines.
import { descendants, isAlive } from "../sampler/procfs.js";
import { groupMembers, processesWithEnv, REAPER_ENV_PREFIX, signalAll } from "./group.js";

const token = process.argv[2] ?? "";
const graceMs = Number(process.argv[3] ?? 5000);
if (!/^[0-9a-f]{8,64}$/.test(token) || !Number.isInteger(graceMs) || graceMs < 0) {
  process.stderr.write(`reaper: usage: node reaper.js TOKEN GRACE_MS (got ${JSON.stringify(process.argv.slice(2))})\n`);
  process.exit(2);
}
const marker = `${REAPER_ENV_PREFIX}${token}=`;

/** The spawned process's group, once the harness has said it. */
let pgid: number | null = null;
/** Pids the harness told us about (the process that owns the listening socket). */
const recorded = new Set<number>();

/** Parses the harness's "pgid N" / "pid N" lines; anything else is ignored. Returns the rest of an unfinished line. */
function readLines(buffer: string): string {
  const lines = buffer.split("\n");
  const rest = lines.pop() ?? "";
  for (const line of lines) {
    const m = /^(pgid|pid) (\d+)$/.exec(line.trim());
    const n = Number(m?.[2]);
    if (!m || !(n > 1)) continue;
    if (m[1] === "pgid") pgid = n;
    else recorded.add(n);
  }
  return rest;
}

/** Everything of the target still alive: the group, the tree below its leader, the recorded pids, the marked ones. */
function left(known: Set<number>): number[] {
  if (pgid !== null) for (const p of [pgid, ...groupMembers(pgid), ...descendants(pgid)]) known.add(p);
  for (const p of processesWithEnv(marker)) known.add(p);
  known.delete(process.pid);
  return [...known].filter(isAlive);
}

process.on("SIGTERM", () => process.exit(0));
process.on("SIGINT", () => undefined); // a terminal's Ctrl-C is the harness's to handle
process.stdin.on("error", () => undefined);
let pending = "";
process.stdin.setEncoding("utf8").on("data", (d: string) => {
  pending = readLines(pending + d);
});
process.stdin.on("close", () => {
  // Collect the tree before anything dies: once the leader is gone its children are re-parented.
  const known = new Set<number>(recorded);
  if (left(known).length === 0) process.exit(0);
  signalAll(pgid, known, "SIGTERM");
  const killAt = Date.now() + graceMs;
  const poll = setInterval(() => {
    const alive = left(known);
    if (alive.length === 0) process.exit(0);
    if (Date.now() >= killAt) {
      signalAll(pgid, alive, "SIGKILL");
      clearInterval(poll);
      // Children forked during the grace period are caught by the group, tree and environment scans above.
      setTimeout(() => {
        signalAll(pgid, left(known), "SIGKILL");
        process.exit(0);
      }, 100);
    }
  }, 50);
});
process.stdin.resume();
