// Runs a --build command in a checkout as a target process does (`sh -c` in its own process group,
// with the reaper beside it, so a harness killed mid-build, even by SIGKILL, takes the build with
// it), its output to a log file, with a timeout. Ctrl-C/SIGTERM during a build stop it and report the signal.
import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { spawnProcess } from "../server-process/process.js";
import { onStopSignals } from "../util/stop-signals.js";
import { lastLines } from "./checkout-plan.js";

export class BuildFailed extends Error {
  override readonly name = "BuildFailed";
  constructor(
    message: string,
    /** Set when the build was stopped by a signal to the harness (Ctrl-C/SIGTERM). */
    readonly signal: "SIGINT" | "SIGTERM" | null = null,
  ) {
    super(message);
  }
}

export interface BuildRun {
  command: string;
  cwd: string;
  log: string;
  timeoutMs: number;
  /** Names the build in messages: "head (1a2b3c4d5e6f)". */
  label: string;
}

/** Runs the build; resolves with its duration in ms, or rejects with BuildFailed (the log's last lines included). */
export async function runBuild(b: BuildRun): Promise<number> {
  const log = createWriteStream(b.log);
  const logClosed = new Promise<void>((resolve) => log.once("close", () => resolve()));
  const started = performance.now();
  const proc = spawnProcess({
    argv: ["sh", "-c", b.command],
    cwd: b.cwd,
    onLine: (line) => log.write(`${line}\n`),
  });
  proc.child.stdin?.end(); // a build reads no input
  let stoppedBy: "SIGINT" | "SIGTERM" | "timeout" | null = null;
  const stop = (why: "SIGINT" | "SIGTERM" | "timeout") => {
    if (stoppedBy) return;
    stoppedBy = why;
    void proc.stop(2000);
  };
  const offSignals = onStopSignals(stop);
  const timeout = setTimeout(() => stop("timeout"), b.timeoutMs);
  const exit = await proc.exited;
  clearTimeout(timeout);
  // Whatever the shell left running in its group goes too; the output is drained by then.
  await proc.stop(2000);
  // Its last lines can trail the exit: wait for the pipes to close (briefly: stop() ended the group).
  if (proc.child.stdout?.readableEnded === false || proc.child.stderr?.readableEnded === false) {
    await Promise.race([once(proc.child, "close"), new Promise((r) => setTimeout(r, 2000).unref())]);
  }
  offSignals();
  log.end();
  await logClosed;
  const ms = performance.now() - started;
  if (exit.code === 0 && !stoppedBy) return ms;

  const how =
    stoppedBy === "timeout"
      ? `did not finish within ${b.timeoutMs} ms (--build-timeout-ms)`
      : stoppedBy
        ? `was stopped by ${stoppedBy}`
        : exit.signal
          ? `was killed by ${exit.signal}`
          : `failed (exit code ${exit.code})`;
  let tail: string[] = [];
  try {
    tail = lastLines(readFileSync(b.log, "utf8"), 15);
  } catch {
    // no log to show
  }
  const shown = tail.length > 0 ? `; last lines:\n${tail.map((l) => `  ${l}`).join("\n")}` : " (no output)";
  throw new BuildFailed(
    `build of ${b.label} ${how} after ${(ms / 1000).toFixed(1)} s: ${b.command}; log kept at ${b.log}${shown}`,
    stoppedBy === "SIGINT" || stoppedBy === "SIGTERM" ? stoppedBy : null,
  );
}
