// `catchup-bench serve ...`: runs the bundled server-under-test as a child process (the harness
// knows it only as a process), passing every argument through; forwards SIGINT/SIGTERM and exits
// with the server's code. The server gets --exit-with-parent and a stdin pipe held by this process,
// and a reaper (scripts/server-process/), so it also ends if this wrapper is killed outright.
import type { CommandModule } from "yargs";
import { SERVE_COMMAND } from "../options/serve.js";
import { spawnBundled } from "../server-process/bundled.js";

const SIGNALS: Record<string, number> = { SIGINT: 2, SIGTERM: 15, SIGKILL: 9 };

/** Runs the server with `args`; resolves with the exit code to use (128+n after a signal). */
export async function runServer(args: string[]): Promise<number> {
  const withParent = args.includes("--exit-with-parent") ? args : [...args, "--exit-with-parent"];
  const server = spawnBundled(withParent, { output: "inherit" });
  // The server runs in a process group of its own: a terminal's Ctrl-C reaches it through us.
  let forwarded: NodeJS.Signals | null = null;
  const forward = (signal: NodeJS.Signals) => () => {
    forwarded ??= signal;
    server.signal(signal);
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    const { code, signal } = await server.exited;
    // A server that shut down cleanly on a signal we forwarded exits 0; the user stopped it, so the
    // exit says so (128 + signal), as a shell reports any program a signal ended.
    if (code === 0 && forwarded !== null) return 128 + (SIGNALS[forwarded] ?? 1);
    return code ?? 128 + (signal === null ? 0 : (SIGNALS[signal] ?? 1));
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    await server.stop(); // anything the server left in its group
  }
}

export const serveCommand: CommandModule<object, { args?: (string | number)[] }> = {
  command: SERVE_COMMAND.command,
  describe: SERVE_COMMAND.describe,
  builder: (y) => y.strict(false).parserConfiguration({ "unknown-options-as-args": true }).help(false),
  handler: async (argv) => {
    const raw = (argv as unknown as { _: (string | number)[] })._;
    const args = raw.slice(raw[0] === "serve" ? 1 : 0).map(String);
    // yargs keeps its global --help for itself; the server prints its own usage.
    if ((argv as { help?: unknown }).help === true || (argv as { h?: unknown }).h === true) args.push("--help");
    process.exitCode = await runServer(args);
  },
};
