// Process groups as /proc shows them, and signals to a group plus pids that left it. Zombies do not
// count as alive: an orphan's zombie lingers until init reaps it, and it holds nothing.
import { procStats } from "../sampler/procfs.js";

/** Live (non-zombie) members of process group pgid. */
export function groupMembers(pgid: number): number[] {
  return procStats()
    .filter((p) => p.state !== "Z" && p.pgrp === pgid)
    .map((p) => p.pid);
}

/** Sends sig to the group pgid (when pgid > 0) and to each pid; errors mean "already gone". True if any was signalled. */
export function signalAll(pgid: number | null, pids: Iterable<number>, sig: NodeJS.Signals): boolean {
  let any = false;
  const targets = new Set<number>(pgid !== null && pgid > 1 ? [-pgid] : []);
  for (const p of pids) if (p > 1 && p !== process.pid && p !== pgid) targets.add(p);
  for (const p of targets) {
    try {
      process.kill(p, sig);
      any = true;
    } catch {
      // already gone
    }
  }
  return any;
}
