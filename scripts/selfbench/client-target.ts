// The bundled server as the client benchmarks see it: a child process (compiled JS) and a URL.
// scripts/ never imports the server; it starts it like any target (scripts/server-process/) and reads its ready line.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { startBundled } from "../server-process/bundled.js";
import { compiledPath } from "../server-process/process.js";

export interface BenchTarget {
  url: string;
  fixture: { latestSequence: number; cursorSequence: number };
  stop: () => Promise<void>;
}

/** Starts `node dist/server-under-test/main.js --db DB --port 0 ...args`; rejects if not ready in timeoutMs. */
export async function startBundledServer(db: string, args: string[], timeoutMs = 30_000): Promise<BenchTarget> {
  const { proc, ready } = await startBundled({ db, extra: args, timeoutMs });
  return {
    url: ready.url,
    fixture: ready.fields.fixture as BenchTarget["fixture"],
    stop: async () => {
      await proc.stop();
    },
  };
}

/**
 * Starts the stub target (client-stub-target.js, compiled) as a child process: a server that does
 * almost nothing per session, for measuring the driver itself. Rejects if it is not ready in timeoutMs.
 */
export async function startStubServer(
  timeoutMs = 30_000,
): Promise<{ url: string; backlog: number; stop: () => Promise<void> }> {
  const main = compiledPath(
    new URL("./client-stub-target.js", import.meta.url),
    new URL("../../dist/scripts/selfbench/client-stub-target.js", import.meta.url),
  );
  // stdin stays a pipe: when this process goes away, the stub sees EOF and exits.
  const child = spawn(process.execPath, [main], { stdio: ["pipe", "pipe", "inherit"] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stub target not ready within ${timeoutMs} ms`)), timeoutMs);
      const lines = createInterface({ input: child.stdout });
      lines.once("line", (l) => {
        clearTimeout(timer);
        resolve(l);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`stub target exited (code ${code}) before it was ready`));
      });
    });
    const ready = JSON.parse(line) as { url: string; backlog: number };
    return { url: ready.url, backlog: ready.backlog, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
