// Test support: the orphan check every command shares. SIGKILL a harness process, then watch the
// processes it had started (its whole tree, detached groups and reapers included, snapshotted just
// before the kill) until all are gone or the bound passes.
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { descendants, isAlive } from "../../scripts/sampler/procfs.js";

/**
 * Bench flags for `trials` legacy resume-many trials with a 1 s ACK delay: each trial (4 chunks) stays
 * in flight for 4 s, long enough to kill something mid-trial even on a busy machine.
 */
export function slowTrialArgs(fixture: string, out: string, trials = 3): string[] {
  return [
    "--variants",
    "legacy",
    "--cases",
    "resume-many",
    "--trials",
    String(trials),
    "--ack-delay-ms",
    "1000",
    "--fixture",
    fixture,
    "--no-memory",
    "--out",
    out,
  ];
}

/** The command line of pid ("" once gone). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}

export interface OrphanReport {
  /** How many processes the harness had started (its tree at the kill). */
  started: number;
  /** "PID COMMAND" of each one still alive when the bound passed (empty: none). */
  left: string[];
  /** From the SIGKILL to the last one gone (or to the bound). */
  goneMs: number;
}

/**
 * SIGKILLs child and reports which processes of its tree outlive it by more than boundMs. The tree
 * must hold what the test expects (check `expect` against `tree` first, else the test proves nothing).
 */
export async function sigkillAndWatch(
  child: ChildProcess,
  label: string,
  boundMs = 2000,
): Promise<OrphanReport & { tree: string[] }> {
  const pids = descendants(child.pid as number);
  const tree = pids.map((p) => `${p} ${cmdline(p)}`);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const killedAt = performance.now();
  child.kill("SIGKILL");
  await exited;
  for (;;) {
    const alive = pids.filter(isAlive);
    const goneMs = performance.now() - killedAt;
    if (alive.length === 0 || goneMs >= boundMs) {
      const report = { started: pids.length, left: alive.map((p) => `${p} ${cmdline(p)}`), goneMs, tree };
      // The figure the docs quote: time from the harness's SIGKILL to no process of ours left.
      console.log(
        `orphans: ${label}: ${pids.length} processes, ${alive.length ? `${alive.length} still alive` : "all gone"} ${goneMs.toFixed(0)} ms after SIGKILL`,
      );
      return report;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
