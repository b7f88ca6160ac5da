// Test helper: run the compiled CLI's `bench` as a real child process and wait on its output
// (progress lines on stderr) with timeouts, never on sleeps.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Results } from "../../scripts/results/schema.js";
import { isAlive } from "../../scripts/sampler/procfs.js";
import { withPlannedMemoryRounds } from "../support/bench-args.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));

export interface BenchChild {
  child: ChildProcess;
  pid: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stderr matches re; rejects after timeoutMs or if the child exits first. */
  waitFor: (re: RegExp, timeoutMs: number) => Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the exit, or kills the child and rejects after timeoutMs. */
  exit: (timeoutMs: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `bench ...args --out out` to its exit (killing it after timeoutMs) and reads the results.json
 * it wrote.
 */
export async function benchResults(
  args: string[],
  out: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string; printed: string; results: Results }> {
  const child = startBench([...args, "--out", out], env);
  const { code } = await child.exit(timeoutMs);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  // printed: the Markdown (stdout), then the guard's and progress lines (stderr).
  const printed = `${child.stdout()}\n${child.stderr()}`;
  return { code, stdout: child.stdout(), stderr: child.stderr(), printed, results };
}

/** env: variables added to this process's for the child. */
export function startBench(args: string[], env: NodeJS.ProcessEnv = {}): BenchChild {
  const child = spawn(process.execPath, [BIN, "bench", ...withPlannedMemoryRounds(args)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
    for (const w of waiters) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      for (const w of waiters) w();
      // The last output can arrive after "exit": wait for "close" (pipes drained), at most 2 s in
      // case a killed harness left a descendant holding the pipe.
      const cap = setTimeout(() => resolve({ code, signal }), 2000);
      child.once("close", () => {
        clearTimeout(cap);
        resolve({ code, signal });
      });
    });
  });
  const waitFor = (re: RegExp, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (re.test(err)) done(null);
        else if (child.exitCode !== null || child.signalCode !== null)
          done(new Error(`bench exited before ${re}; stderr:\n${err}`));
      };
      const timer = setTimeout(
        () => done(new Error(`no ${re} on stderr within ${timeoutMs} ms; stderr:\n${err}`)),
        timeoutMs,
      );
      const done = (e: Error | null) => {
        clearTimeout(timer);
        waiters.delete(check);
        e ? reject(e) : resolve();
      };
      waiters.add(check);
      check();
    });
  const exit = async (timeoutMs: number) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`bench did not exit within ${timeoutMs} ms; stderr:\n${err}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { child, pid: child.pid as number, stdout: () => out, stderr: () => err, waitFor, exited, exit };
}

export { cmdline } from "../support/orphans.js";

/** Resolves with the pids still alive after timeoutMs (empty when all ended in time), checking as they end. */
export async function survivorsAfter(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || performance.now() >= deadline) return alive;
    await new Promise((r) => setTimeout(r, 20));
  }
}
