// Test support: start the bundled server (compiled JS) on loopback and wait for its ready line.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const SERVER_MAIN = fileURLToPath(new URL("../../dist/server-under-test/main.js", import.meta.url));
/** The documented default dev token (both scopes). */
export const DEV_TOKEN = "catchup-dev-token";

export interface RunningServer {
  url: string;
  pid: number;
  ready: Record<string, unknown>;
  child: ChildProcess;
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `node [...nodeArgs] dist/server-under-test/main.js --db DB --port 0 ...args`; rejects if not
 * ready in timeoutMs. nodeArgs are Node's own flags (e.g. `--inspect=127.0.0.1:0`).
 */
export async function startServer(
  db: string,
  args: string[] = [],
  timeoutMs = 20_000,
  nodeArgs: string[] = [],
): Promise<RunningServer> {
  const child = spawn(process.execPath, [...nodeArgs, SERVER_MAIN, "--db", db, "--port", "0", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = once(child, "exit");
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server not ready within ${timeoutMs} ms; stderr:\n${err}`));
    }, timeoutMs);
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out.slice(0, nl)));
        } catch (e) {
          reject(new Error(`bad ready line ${out.slice(0, nl)}: ${(e as Error).message}`));
        }
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (code ${code}, signal ${signal}) before ready; stderr:\n${err}`));
    });
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    const [code, sig] = (await exited) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    return { code, signal: sig };
  };
  return { url: String(ready.url), pid: Number(ready.pid), ready, child, stderr: () => err, stop };
}
