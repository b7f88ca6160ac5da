// Test support: run a real child process to completion, collecting its output, with a timeout (the
// child is SIGKILLed and the promise rejects if it overruns, so a hung child fails the test).
import { spawn } from "node:child_process";

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunChildOptions {
  /** Kill and reject after this long. */
  timeoutMs: number;
  /** Names the child in the timeout error (default: the command line). */
  label?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with all stderr so far whenever more arrives. */
  onStderr?: (stderr: string) => void;
}

/** Spawns `command ...args` (stdin ignored) and resolves once it exits and its output has closed. */
export function runChild(command: string, args: readonly string[], options: RunChildOptions): Promise<ChildResult> {
  const label = options.label ?? [command, ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      options.onStderr?.(stderr);
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${label} did not exit within ${options.timeoutMs} ms; stderr:\n${stderr}`));
    }, options.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** runChild for `node ...args` (the Node running the tests). */
export function runNode(args: readonly string[], options: RunChildOptions): Promise<ChildResult> {
  return runChild(process.execPath, args, options);
}
