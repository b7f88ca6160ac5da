// Test support: start the bundled server (compiled JS) on loopback through the harness's own target
// module (process group, reaper, ready line) and wait for its ready line.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startBundled } from "../../scripts/server-process/bundled.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const SERVER_MAIN = fileURLToPath(new URL("../../dist/server-under-test/main.js", import.meta.url));
/** The documented default dev token (both scopes), as the client knows it. */
export { DEV_TOKEN } from "../../scenarios/lib/protocol.js";

export interface RunningServer {
  url: string;
  pid: number;
  ready: Record<string, unknown>;
  child: ChildProcess;
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `node [...nodeArgs] dist/server-under-test/main.js --db DB --host 127.0.0.1 --port 0 ...args`
 * (no --exit-with-parent unless args has it); rejects if not ready in timeoutMs. nodeArgs are Node's
 * own flags (e.g. `--inspect=127.0.0.1:0`).
 */
export async function startServer(
  db: string,
  args: string[] = [],
  timeoutMs = 20_000,
  nodeArgs: string[] = [],
): Promise<RunningServer> {
  const { proc, ready } = await startBundled({ db, extra: args, timeoutMs, nodeArgs, lifeline: false });
  let timer: NodeJS.Timeout | undefined;
  /** Sends signal and waits for the exit; SIGKILL after 10 s. */
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (!proc.exitInfo()) proc.signal(signal);
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => resolve(proc.kill()), 10_000);
    });
    await Promise.race([proc.exited, killed]);
    clearTimeout(timer);
    const info = await proc.stop(0);
    return { code: info.code, signal: info.signal };
  };
  return {
    url: ready.url,
    pid: ready.pid,
    ready: ready.fields,
    child: proc.child,
    stderr: () => proc.stderrTail(100_000),
    stop,
  };
}
