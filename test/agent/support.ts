// Test support for the sampling agent: `catchup-bench sample ...` as a live child (compiled CLI),
// with its stdout lines as events, and the samples file read back as parsed lines.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { BIN, ROOT } from "../fixtures/cli.js";

export interface AgentChild {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stdout holds a match of re (rejects after timeoutMs or when the agent exits first). */
  waitFor: (re: RegExp, timeoutMs?: number) => Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();

/** Starts `catchup-bench sample ARGS`; SIGKILLed by killAgents() if a test leaves it running. */
export function startAgentChild(args: string[]): AgentChild {
  const child = spawn(process.execPath, [BIN, "sample", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      live.delete(child);
      for (const w of waiters) w();
      resolve({ code, signal });
    }),
  );
  const waitFor = (re: RegExp, timeoutMs = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = re.exec(out);
        if (m) return done(() => resolve(m[0]));
        if (child.exitCode !== null || child.signalCode !== null)
          done(() => reject(new Error(`agent exited before ${re}: ${out}${err}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no ${re} within ${timeoutMs} ms: ${out}${err}`))),
        timeoutMs,
      );
      const done = (f: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        f();
      };
      waiters.add(check);
      check();
    });
  return { child, stdout: () => out, stderr: () => err, waitFor, exited };
}

export function killAgents(): void {
  for (const c of live) c.kill("SIGKILL");
  live.clear();
}

export type SampleLine = Record<string, unknown> & { t: number; wall: number };

/** Every line of a samples file, parsed (a torn last line would throw: the test wants to see that). */
export function readSamples(file: string): SampleLine[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as SampleLine);
}
