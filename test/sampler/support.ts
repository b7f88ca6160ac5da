// Test support for the sampler: start probe-target.mjs (directly or behind wrappers) as a real child
// process in its own process group, read its JSON lines, and kill the whole group afterwards.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { connectInspector, type InspectorClient, inspectorUrlFromStderr } from "../../scripts/sampler/inspector.js";
import type { Sampler } from "../../scripts/sampler/sampler.js";
import { withTimeout } from "../../scripts/util/timeout.js";

export const PROBE_TARGET = fileURLToPath(new URL("../../scripts/selfbench/targets/probe-target.mjs", import.meta.url));
export const WRAPPER = fileURLToPath(new URL("./targets/wrapper.mjs", import.meta.url));
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Target {
  child: ChildProcess;
  /** The pid this test spawned (maybe a wrapper). */
  pid: number;
  /** The probe target's own ready line. */
  ready: { pid: number; port: number };
  stderr: () => string;
  /** Sends one command line and resolves with the next JSON line (timeout: 20 s). */
  command: (line: string) => Promise<Record<string, unknown>>;
  /** The next JSON line on stdout (timeout: 20 s). */
  nextLine: () => Promise<Record<string, unknown>>;
  /** Resolves when the spawned process exits; rejects if it has not within 10 s of this call. */
  waitExit: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the whole process group (wrappers and target). */
  kill: () => void;
}

const live = new Set<Target>();

/** Spawns command/args (default: node PROBE_TARGET) and waits for the probe target's ready line. */
export async function startTarget(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Target> {
  const child = spawn(command, args, {
    stdio: ["pipe", "pipe", "pipe"],
    env: options.env ?? process.env,
    cwd: options.cwd ?? ROOT,
    detached: true, // own process group, so kill() reaches every wrapper and the target
  });
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const queue: string[] = [];
  const waiters: ((l: string) => void)[] = [];
  if (!child.stdout) throw new Error("no stdout");
  createInterface({ input: child.stdout }).on("line", (l) => {
    const w = waiters.shift();
    if (w) w(l);
    else queue.push(l);
  });
  const nextLine = () =>
    withTimeout(
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const take = (l: string) => {
          try {
            resolve(JSON.parse(l));
          } catch {
            reject(new Error(`not JSON: ${l}`));
          }
        };
        const q = queue.shift();
        if (q !== undefined) take(q);
        else waiters.push(take);
        void exited.then(({ code, signal }) => reject(new Error(`target exited (${code ?? signal}); stderr: ${err}`)));
      }),
      20_000,
      `${command} ${args.join(" ")}`,
    );
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const target: Target = {
    child,
    pid: child.pid as number,
    ready: { pid: 0, port: 0 },
    stderr: () => err,
    command: (line) => {
      child.stdin?.write(`${line}\n`);
      return nextLine();
    },
    nextLine,
    waitExit: () => withTimeout(exited, 10_000, "target exit"),
    kill,
  };
  live.add(target);
  const ready = await nextLine();
  target.ready = { pid: Number(ready.pid), port: Number(ready.port) };
  return target;
}

/** node [nodeArgs] probe-target.mjs */
export function startProbe(nodeArgs: string[] = [], env?: NodeJS.ProcessEnv): Promise<Target> {
  return startTarget(process.execPath, [...nodeArgs, PROBE_TARGET], env ? { env } : {});
}

/** Kills every target started by this file's tests. */
export function killAll(): void {
  for (const t of live) t.kill();
  live.clear();
}

export { withTimeout };

/**
 * Waits until predicate() holds, checking every 10 ms; rejects after timeoutMs. For conditions only
 * /proc shows (no event exists for "the kernel unmapped the freed buffer").
 */
export async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const clients: InspectorClient[] = [];
const samplers: Sampler[] = [];

/** A probe target started with the inspector on 127.0.0.1 and a random port, and a client for it. */
export async function inspectedProbe(): Promise<{ t: Target; c: InspectorClient }> {
  const t = await startProbe(["--inspect=127.0.0.1:0"]);
  // The banner is printed before the HTTP server listens, so it is on stderr by the ready line.
  const url = inspectorUrlFromStderr(t.stderr());
  if (!url) throw new Error(`no inspector banner: ${t.stderr()}`);
  const c = await connectInspector(url);
  clients.push(c);
  return { t, c };
}

/** Keeps a sampler to be stopped by stopAll. */
export function keepSampler(s: Sampler): void {
  samplers.push(s);
}

/** After each test: stops the kept samplers, closes the probes' inspector clients, kills every target. */
export async function stopAll(): Promise<void> {
  await Promise.all(samplers.splice(0).map((s) => s.stop()));
  await Promise.all(clients.splice(0).map((c) => c.close(1_000)));
  killAll();
}
