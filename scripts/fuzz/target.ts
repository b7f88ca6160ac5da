// The bundled server as the fuzzer sees it: a child process (compiled JS from dist/) with its inspector
// on loopback, a ready line on stdout, and a stderr we scan for signs of trouble. The harness never
// imports the server's code.
import { type ChildProcess, spawn } from "node:child_process";
import { bundledServerArgs } from "../bundled-server.js";
import { inspectorUrlFromStderr } from "../sampler/inspector.js";

/** stderr lines that mean the server met an error it did not handle. */
export const SUSPICIOUS_STDERR =
  /unhandled|uncaught|UnhandledPromiseRejection|Fiber terminated|FATAL|heap out of memory|Maximum call stack|ERR_INTERNAL/i;

export interface TargetExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface FuzzTarget {
  readonly url: string;
  readonly pid: number;
  readonly inspectorUrl: string;
  readonly child: ChildProcess;
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
}

/** Starts `node --inspect=127.0.0.1:0 dist/server-under-test/main.js --db DB --port 0 --exit-with-parent`. */
export function startTarget(options: StartTargetOptions): Promise<FuzzTarget> {
  const timeoutMs = options.readyTimeoutMs ?? 20_000;
  const child = spawn(process.execPath, bundledServerArgs(options.db, { inspect: true, extra: options.args ?? [] }), {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let exited: TargetExit | null = null;
  const exitPromise = new Promise<TargetExit>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });
  let stderrBuffer = "";
  let lines = 0;
  const tail: string[] = [];
  const suspicious: string[] = [];
  let inspectorUrl: string | null = null;
  const onLine = (line: string) => {
    lines++;
    tail.push(line);
    if (tail.length > 20) tail.shift();
    inspectorUrl ??= inspectorUrlFromStderr(line);
    if (SUSPICIOUS_STDERR.test(line) && suspicious.length < 50) suspicious.push(line.slice(0, 500));
  };
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderrBuffer += chunk;
    let nl = stderrBuffer.indexOf("\n");
    while (nl >= 0) {
      onLine(stderrBuffer.slice(0, nl));
      stderrBuffer = stderrBuffer.slice(nl + 1);
      nl = stderrBuffer.indexOf("\n");
    }
  });
  const stop = async (graceMs = 5_000): Promise<TargetExit> => {
    if (exited) return exited;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    const result = await exitPromise;
    clearTimeout(timer);
    return result;
  };
  return new Promise<FuzzTarget>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`bundled server not ready within ${timeoutMs} ms; stderr:\n${tail.join("\n")}`));
    }, timeoutMs);
    const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`bundled server exited (code ${code}, signal ${signal}) before ready:\n${tail.join("\n")}`));
    };
    child.once("exit", onEarlyExit);
    child.stdout?.setEncoding("utf8").on("data", function onData(d: string) {
      out += d;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      clearTimeout(timer);
      child.off("exit", onEarlyExit);
      let ready: { url?: unknown; pid?: unknown };
      try {
        ready = JSON.parse(out.slice(0, nl));
      } catch {
        child.kill("SIGKILL");
        reject(new Error(`bundled server printed a bad ready line: ${out.slice(0, 200)}`));
        return;
      }
      if (inspectorUrl === null) {
        child.kill("SIGKILL");
        reject(new Error("bundled server ready but its inspector url was not on stderr"));
        return;
      }
      resolve({
        url: String(ready.url),
        pid: Number(ready.pid),
        inspectorUrl,
        child,
        exit: () => exited,
        suspicious: () => [...suspicious],
        stderrLineCount: () => lines,
        stderrTail: () => [...tail],
        stop,
      });
    });
  });
}
