// `catchup-bench serve ...`: runs the bundled server-under-test as a child process (the harness
// knows it only as a process), passing every argument through; forwards SIGINT/SIGTERM and exits
// with the server's code. The server gets --exit-with-parent and a stdin pipe held by this process,
// so it also ends if this wrapper is killed outright.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CommandModule } from "yargs";

export const SERVER_MAIN_JS = fileURLToPath(new URL("../../server-under-test/main.js", import.meta.url));

/** Runs the server with `args`; resolves with the exit code to use (128+n after a signal). */
export function runServer(args: string[]): Promise<number> {
  const withParent = args.includes("--exit-with-parent") ? args : [...args, "--exit-with-parent"];
  const child = spawn(process.execPath, [SERVER_MAIN_JS, ...withParent], { stdio: ["pipe", "inherit", "inherit"] });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      const signo =
        signal === null ? 0 : (({ SIGINT: 2, SIGTERM: 15, SIGKILL: 9 } as Record<string, number>)[signal] ?? 1);
      resolve(code ?? 128 + signo);
    });
  });
}

export const serveCommand: CommandModule<object, { args?: (string | number)[] }> = {
  command: "serve",
  describe:
    "Run the bundled Effect RPC server on a fixture: serve --db FIXTURE [--host 127.0.0.1] [--port 0] " +
    "[--delivery legacy|batched] [--token SECRET[:scope,scope]]... [--max-replay-events N] " +
    "[--max-replay-bytes N] [--max-initial-chunk-bytes N] [--exit-with-parent]",
  builder: (y) => y.strict(false).parserConfiguration({ "unknown-options-as-args": true }).help(false),
  handler: async (argv) => {
    const raw = (argv as unknown as { _: (string | number)[] })._;
    const args = raw.slice(raw[0] === "serve" ? 1 : 0).map(String);
    // yargs keeps its global --help for itself; the server prints its own usage.
    if ((argv as { help?: unknown }).help === true || (argv as { h?: unknown }).h === true) args.push("--help");
    process.exitCode = await runServer(args);
  },
};
