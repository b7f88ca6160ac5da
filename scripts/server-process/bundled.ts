// The bundled server as a process the harness starts (it never imports the server's code): where its
// compiled entry point is, the arguments that start it on loopback, and starting it until its ready
// line. This is the one module that starts server-under-test/main.js. The CLI reads DELIVERIES from
// here to parse its flags, so the inspector client (and `ws`) is loaded only when a server starts.
import { spawnSync } from "node:child_process";
import { compiledPath, spawnProcess, type TargetProcess } from "./process.js";
import { parseReadyLine, type ReadyLine } from "./ready.js";
import { NotReadyError, waitReady } from "./wait.js";

/** The bundled server's catch-up delivery strategies (server-under-test/delivery.ts). */
export const DELIVERIES = ["legacy", "batched"] as const;
export type Delivery = (typeof DELIVERIES)[number];

/**
 * dist/server-under-test/main.js, from the compiled module (dist/scripts/server-process/) or from source
 * (tests): measured processes always run the compiled server.
 */
const SERVER_MAIN = compiledPath(
  new URL("../../server-under-test/main.js", import.meta.url),
  new URL("../../dist/server-under-test/main.js", import.meta.url),
);

/** `node [--inspect=127.0.0.1:0] SERVER_MAIN ...args`: the bundled server's full command line. */
export function bundledServerArgv(args: string[], options: { inspect?: boolean } = {}): string[] {
  return [process.execPath, ...(options.inspect ? ["--inspect=127.0.0.1:0"] : []), SERVER_MAIN, ...args];
}

/** The command line results describe a bundled variant with ({db} stands for the private copy). */
export function bundledCommandLine(delivery: string, serverArgs: readonly string[] = []): string {
  const extra = serverArgs.map((a) => (/^[\w./:=,@+-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
  return `node --inspect=127.0.0.1:0 ${SERVER_MAIN} --db {db} --port 0 --delivery ${delivery} --exit-with-parent${extra ? ` ${extra}` : ""}`;
}

/**
 * Runs the compiled server with --check-flags on args (its own parser, no fixture opened): null when
 * it accepts them, else its one-line error (without the usage it appends; `serve --help` has that).
 */
export function checkBundledFlags(args: readonly string[], timeoutMs = 20_000): string | null {
  const r = spawnSync(process.execPath, [SERVER_MAIN, "--db", "-", "--check-flags", ...args], {
    encoding: "utf8",
    timeout: timeoutMs,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (r.status === 0) return null;
  if (r.error) return r.error.message;
  const line = r.stderr.trim().split("\n").at(-1) ?? "";
  return line.replace(/^server-under-test: /, "").replace(/; usage: .*$/, "") || `exit ${r.status ?? r.signal}`;
}

/**
 * Server arguments that start it on 127.0.0.1 with a kernel-chosen port, ending when its stdin closes
 * (--exit-with-parent); extra goes last.
 */
export function bundledServerArgs(db: string, extra: string[] = [], lifeline = true): string[] {
  return ["--db", db, "--host", "127.0.0.1", "--port", "0", ...(lifeline ? ["--exit-with-parent"] : []), ...extra];
}

export interface BundledOptions {
  db: string;
  /** Extra server flags (--delivery, --token, ...). */
  extra?: string[];
  /** Start its inspector on a loopback port and wait for its URL on stderr. */
  inspect?: boolean;
  /** Node's own flags before the entry point (besides --inspect). */
  nodeArgs?: string[];
  /** Added to the harness's environment (e.g. a token the server reads through --token-env). */
  env?: Record<string, string>;
  /** Pass --exit-with-parent (default true); the reaper guards the server either way. */
  lifeline?: boolean;
  timeoutMs?: number;
  graceMs?: number;
  /** Nice value from the start (a server started ahead of its trial: server-process/priority.ts). */
  nice?: number;
  signal?: AbortSignal;
}

export interface BundledServer {
  proc: TargetProcess;
  ready: ReadyLine;
  /** The inspector's ws:// URL when options.inspect, else null. */
  inspectorUrl: string | null;
}

/** Spawns the bundled server with args passed through (`serve`); no readiness wait. */
export function spawnBundled(args: string[], options: { output?: "pipe" | "inherit"; graceMs?: number } = {}) {
  return spawnProcess({ argv: bundledServerArgv(args), output: options.output, graceMs: options.graceMs });
}

/**
 * Starts the bundled server on options.db and resolves once its ready line is printed (and its
 * inspector URL, with inspect); stops it and rejects with a NotReadyError (stderr tail included) otherwise.
 */
export async function startBundled(options: BundledOptions): Promise<BundledServer> {
  const argv = bundledServerArgv(bundledServerArgs(options.db, options.extra, options.lifeline ?? true), {
    inspect: options.inspect,
  });
  if (options.nodeArgs?.length) argv.splice(1, 0, ...options.nodeArgs);
  const env = options.env ? { ...process.env, ...options.env } : undefined;
  const { inspectorUrlFromStderr } = await import("../sampler/inspector.js");
  const proc = spawnProcess({ argv, env, graceMs: options.graceMs, nice: options.nice });
  let inspectorUrl: string | null = null;
  let ready: ReadyLine | null = null;
  try {
    await waitReady(proc, {
      line: (line, stream) => {
        if (stream === "stderr") inspectorUrl ??= inspectorUrlFromStderr(line);
        else ready ??= parseReadyLine(line);
        return ready && (!options.inspect || inspectorUrl) ? true : null;
      },
      timeoutMs: options.timeoutMs ?? 20_000,
      signal: options.signal,
    });
  } catch (e) {
    await proc.stop();
    const tail = proc.stderrTail();
    const why = e instanceof NotReadyError ? e.message : String(e);
    throw new NotReadyError(
      e instanceof NotReadyError ? e.reason : "exited",
      `bundled server ${why}${ready && !inspectorUrl ? " (no inspector URL on stderr)" : ""}${tail ? `; last stderr lines:\n${tail}` : " (no stderr output)"}`,
      proc.exitInfo(),
    );
  }
  return { proc, ready: ready as unknown as ReadyLine, inspectorUrl };
}
