// Waiting for a started process to be ready: a line it prints (the bundled server's ready line, a
// user's --ready-line), or its port accepting connections. Every wait ends: ready, the process
// exited, the start timeout spent, or the caller aborted (Ctrl-C).
import { connect } from "node:net";
import type { ExitInfo, StreamName, TargetProcess } from "./process.js";

export type NotReadyReason = "exited" | "timeout" | "aborted";

export class NotReadyError extends Error {
  override readonly name = "NotReadyError";
  constructor(
    readonly reason: NotReadyReason,
    message: string,
    readonly exit: ExitInfo | null = null,
  ) {
    super(message);
  }
}

/** "exit code 3" / "signal SIGKILL" / "still running". */
export function describeExit(info: ExitInfo | null): string {
  if (!info) return "still running";
  return info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
}

/** True when a TCP connection to 127.0.0.1:port opens within timeoutMs. */
export function canConnect(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export interface ReadyWait<T> {
  /** Called for every line; a non-null result means ready (the result is returned). */
  line?: (line: string, stream: StreamName) => T | null;
  /** Also ready once this port accepts connections (checked every 50 ms). */
  port?: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Resolves with the line matcher's result ({line: T}) or {port: true} once ready; rejects with a
 * NotReadyError when the process exits first, the timeout passes, or signal aborts.
 */
export async function waitReady<T>(proc: TargetProcess, wait: ReadyWait<T>): Promise<{ line: T } | { port: true }> {
  const deadline = Date.now() + wait.timeoutMs;
  let found: { line: T } | null = null;
  let wake: () => void = () => undefined;
  const off = wait.line
    ? proc.onLine((l, s) => {
        if (found) return;
        const v = (wait.line as NonNullable<typeof wait.line>)(l, s);
        if (v !== null) {
          found = { line: v };
          wake();
        }
      })
    : () => undefined;
  const onAbort = () => wake();
  wait.signal?.addEventListener("abort", onAbort);
  void proc.exited.then(() => wake());
  try {
    for (;;) {
      if (found) return found;
      if (wait.signal?.aborted) throw new NotReadyError("aborted", "interrupted while starting");
      const exit = proc.exitInfo();
      // A wrapper that exits while the rest of its group runs on has handed off, not failed.
      if (exit && !proc.running()) {
        throw new NotReadyError("exited", `exited before it was ready (${describeExit(exit)})`, exit);
      }
      if (wait.port !== undefined && (await canConnect(wait.port, 250))) return { port: true };
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new NotReadyError("timeout", `never became ready within ${wait.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(50, left));
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = () => undefined;
    }
  } finally {
    off();
    wait.signal?.removeEventListener("abort", onAbort);
  }
}
