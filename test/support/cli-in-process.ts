// Test aid for usage-error catalogues: the CLI's own main(argv) (scripts/cli.ts) run in this process,
// with this process's stdout and stderr captured and process.exitCode read and restored. The same
// parser and flag rules as `node bin/catchup-bench.js`, without a process start (0.2 s) per case.
// Only for runs that stop at their flags: nothing started, no stream redacted, nothing written. A
// catalogue keeps a few of its cases spawned for real, to prove the process itself exits 2 with one
// line. Runs are serialised (they share this process's streams), so a concurrent suite may use it.
import { main } from "../../scripts/cli.js";

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

let queue: Promise<unknown> = Promise.resolve();

/** `catchup-bench ...args` through main() in this process; rejects when the run got past its flags. */
export function runMain(args: string[]): Promise<InProcessRun> {
  const run = queue.then(() => runOnce(args));
  queue = run.catch(() => {});
  return run;
}

type Write = typeof process.stdout.write;

function capture(into: string[]): Write {
  return ((chunk: unknown, ...rest: unknown[]) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as Write;
}

async function runOnce(args: string[]): Promise<InProcessRun> {
  const saved = { exitCode: process.exitCode, out: process.stdout.write, err: process.stderr.write };
  const out: string[] = [];
  const err: string[] = [];
  process.exitCode = undefined;
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  try {
    await main(args);
    const code = Number(process.exitCode ?? 0);
    const redacted = [process.stdout, process.stderr].some((s) => (s as { __redacting?: boolean }).__redacting);
    if (redacted) throw new Error(`runMain(${args.join(" ")}) got past its flags (streams redacted): spawn it instead`);
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.exitCode = saved.exitCode;
  }
}
