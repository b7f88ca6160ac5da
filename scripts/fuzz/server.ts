// The bundled server as the fuzzer sees it: started through scripts/server-process/ (compiled JS from dist/,
// its own process group and reaper) with its inspector on loopback, and a stderr we scan for signs of
// trouble. The harness never imports the server's code.
import { startBundled } from "../server-process/bundled.js";
import type { ExitInfo } from "../server-process/process.js";

/** stderr lines that mean the server met an error it did not handle. */
export const SUSPICIOUS_STDERR =
  /unhandled|uncaught|UnhandledPromiseRejection|Fiber terminated|FATAL|heap out of memory|Maximum call stack|ERR_INTERNAL/i;

export type TargetExit = ExitInfo;

export interface FuzzTarget {
  readonly url: string;
  readonly pid: number;
  readonly inspectorUrl: string;
  /** Set once the process exited. */
  exit(): TargetExit | null;
  /** stderr lines matching SUSPICIOUS_STDERR (at most 50 kept). */
  suspicious(): string[];
  /** Number of stderr lines seen, and the last few. */
  stderrLineCount(): number;
  stderrTail(): string[];
  /** SIGTERM, then SIGKILL after graceMs; resolves with the exit. */
  stop(graceMs?: number): Promise<TargetExit>;
}

export interface StartTargetOptions {
  db: string;
  /** Extra server flags (e.g. --token ...). */
  args?: string[];
  readyTimeoutMs?: number;
  signal?: AbortSignal;
}

/** Starts `node --inspect=127.0.0.1:0 dist/server-under-test/main.js --db DB --port 0 --exit-with-parent`. */
export async function startTarget(options: StartTargetOptions): Promise<FuzzTarget> {
  let lines = 0;
  const suspicious: string[] = [];
  const server = await startBundled({
    db: options.db,
    extra: options.args ?? [],
    inspect: true,
    timeoutMs: options.readyTimeoutMs ?? 20_000,
    signal: options.signal,
  });
  const { proc } = server;
  // Lines before the ready line are in the tail already; count from here (startup prints no trouble).
  lines = proc.stderrTail(1000).split("\n").filter(Boolean).length;
  proc.onLine((line, stream) => {
    if (stream !== "stderr") return;
    lines++;
    if (SUSPICIOUS_STDERR.test(line) && suspicious.length < 50) suspicious.push(line.slice(0, 500));
  });
  return {
    url: server.ready.url,
    pid: server.ready.pid,
    inspectorUrl: server.inspectorUrl as string,
    exit: () => proc.exitInfo(),
    suspicious: () => [...suspicious],
    stderrLineCount: () => lines,
    stderrTail: () => proc.stderrTail(20).split("\n"),
    stop: (graceMs) => proc.stop(graceMs),
  };
}
