// Process groups as /proc shows them, and signals to a group plus pids that left it. Zombies do not
// count as alive: an orphan's zombie lingers until init reaps it, and it holds nothing.
import { readdirSync, readFileSync } from "node:fs";
import { procStats } from "../sampler/procfs.js";

/**
 * `${REAPER_ENV_PREFIX}<token>=1` in a process's environment (inherited by its descendants) marks it
 * as guarded by the reaper holding that token.
 */
export const REAPER_ENV_PREFIX = "CATCHUP_BENCH_REAPER_";

/**
 * Pids whose initial environment holds an entry starting with `entry` (e.g. "NAME=").
 * /proc/PID/environ is readable for our own user's processes only: others are skipped.
 */
export function processesWithEnv(entry: string): number[] {
  const needle = Buffer.from(`\0${entry}`);
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // gone, or not ours
    }
    if (env.indexOf(needle) >= 0 || env.subarray(0, needle.length - 1).equals(needle.subarray(1)))
      out.push(Number(name));
  }
  return out;
}

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
