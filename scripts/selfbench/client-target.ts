// The bundled server as the client benchmarks see it: a child process (compiled JS) and a URL.
// scripts/ never imports the server; it starts it like any target and reads its ready line.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVER_MAIN = fileURLToPath(new URL("../../server-under-test/main.js", import.meta.url));

export interface BenchTarget {
  url: string;
  fixture: { latestSequence: number; cursorSequence: number };
  stop: () => Promise<void>;
}

/** Starts `node dist/server-under-test/main.js --db DB --port 0 ...args`; rejects if not ready in timeoutMs. */
export function startBundledServer(db: string, args: string[], timeoutMs = 30_000): Promise<BenchTarget> {
  const child = spawn(process.execPath, [SERVER_MAIN, "--db", db, "--port", "0", "--exit-with-parent", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server not ready within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (code ${code}, signal ${signal}) before ready; stderr:\n${stderr}`));
    });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        const ready = JSON.parse(out.slice(0, nl)) as { url: string; fixture: BenchTarget["fixture"] };
        resolve({ url: ready.url, fixture: ready.fixture, stop });
      } catch (e) {
        reject(new Error(`bad ready line ${out.slice(0, nl)}: ${(e as Error).message}`));
      }
    });
  });
}
