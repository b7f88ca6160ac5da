// Test aid: run the compiled CLI as a real child process, wait on its output files with timeouts,
// and find processes left behind by scanning /proc.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isAlive } from "../../../scripts/sampler/procfs.js";
import { cliArgs } from "../../support/bench-args.js";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const CLI = fileURLToPath(new URL("../../../bin/catchup-bench.js", import.meta.url));
export const SERVER_MAIN = fileURLToPath(new URL("../../../dist/server-under-test/main.js", import.meta.url));
export const FAULTY = fileURLToPath(new URL("../targets/faulty.mjs", import.meta.url));
export const NEVER_READY = fileURLToPath(new URL("../targets/never-ready.mjs", import.meta.url));

export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  /** After the output pipes are drained (every holder of them has exited). */
  closed: Promise<void>;
}

/** Starts `node bin/catchup-bench.js ...args`; env extends process.env. */
export function startCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): CliRun {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...cliArgs(args)], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal, ms: performance.now() - started }));
  });
  // "exit" can come before the last output is read; "close" comes after the pipes are drained.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return { child, stdout: () => out, stderr: () => err, exited, closed };
}

/** Runs the CLI to the end; SIGKILLs it after timeoutMs (and reports that as a failure of the run). */
export async function runCli(args: string[], timeoutMs = 60_000, env: Record<string, string> = {}, cwd = ROOT) {
  const run = startCli(args, env, cwd);
  const timer = setTimeout(() => run.child.kill("SIGKILL"), timeoutMs);
  const exit = await run.exited;
  await run.closed;
  clearTimeout(timer);
  return { ...exit, stdout: run.stdout(), stderr: run.stderr() };
}

/** Resolves true once cond() holds; false after timeoutMs. Checks every 25 ms (a condition, not a sleep). */
export async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (cond()) return true;
    if (performance.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface JsonlLine {
  kind: string;
  row?: Record<string, unknown>;
}

/** The lines of a results.jsonl (empty when missing); a torn last line is ignored. */
export function readJsonl(path: string): JsonlLine[] {
  if (!existsSync(path)) return [];
  const lines: JsonlLine[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // a line being written
    }
  }
  return lines;
}

export function rowsOf(path: string, kind = "latency"): Record<string, unknown>[] {
  return readJsonl(path)
    .filter((l) => l.kind === kind && l.row)
    .map((l) => l.row as Record<string, unknown>);
}

/** Pids of live processes whose command line contains `marker` (zombies excluded). */
export function processesWith(marker: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (!cmd.includes(marker)) continue;
      if (!isAlive(Number(entry))) continue;
      found.push({ pid: Number(entry), cmd });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
