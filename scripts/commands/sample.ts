// `catchup-bench sample --pid PID | --port PORT --out FILE`: the sampling agent on the server's host.
// Flags in, exit code out: the sampling itself is scripts/sampler/agent.ts. Stops on SIGINT/SIGTERM
// or --duration (exit 0) or when the server exits (exit 3); SIGUSR2 marks the moment and forces a GC.
// The sampler is loaded once the flags are read.
import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { SAMPLE_COMMAND, SAMPLE_OPTIONS } from "../options/sample.js";
import { type Flags, readFlags } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import type { Agent, AgentResult } from "../sampler/agent.js";
import { defaultHeapIntervalMs } from "../sampler/lane-defaults.js";
import { escapeText } from "../util/escape.js";
import { EXIT } from "../util/exit-codes.js";
import { mib } from "../util/format.js";
import { UsageError, writableDirFlag } from "../util/usage.js";

/** What a SIGKILL can lose: the RSS lane hands its readings over (and the file is written) this often. */
const FLUSH_MS = 20;

type Args = Record<string, unknown>;

/** SIGINT/SIGTERM and SIGUSR2 from the very start: a signal during start-up is honoured, never Node's default death. */
function listenForSignals() {
  let requested: (reason: string) => void = () => {};
  const stopRequested = new Promise<string>((resolve) => {
    requested = resolve;
  });
  let usr2: () => void = () => {};
  const handlers = {
    SIGINT: () => requested("SIGINT"),
    SIGTERM: () => requested("SIGTERM"),
    SIGUSR2: () => usr2(),
  } as const;
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  return {
    stopRequested,
    onUsr2(f: () => void) {
      usr2 = f;
    },
    stop: (reason: string) => requested(reason),
    off() {
      for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
    },
  };
}

/** The command's work: samples until stopped; resolves with the exit code. */
export async function runSample(args: Args, print: (line: string) => void): Promise<number> {
  const signals = listenForSignals();
  try {
    return await sample(args, print, signals);
  } finally {
    signals.off();
  }
}

async function sample(args: Args, print: (line: string) => void, signals: ReturnType<typeof listenForSignals>) {
  const f = readFlags(SAMPLE_OPTIONS, args);
  if (f.out === undefined) throw new UsageError("--out is required (the samples file to write)");
  writableDirFlag("out", f.out, "file");
  const file = resolve(f.out);
  const [{ AgentFileError, agentFileProblem, startAgent }, { AgentTargetError, agentInspector, agentPid }] =
    await Promise.all([import("../sampler/agent.js"), import("../sampler/agent-target.js")]);
  (await import("../bench/run/preflight.js")).checkProcessStats();
  const fileProblem = agentFileProblem(file);
  if (fileProblem) throw new UsageError(fileProblem);
  let pid: number;
  try {
    pid = agentPid(f.pid, f.port);
  } catch (e) {
    if (e instanceof AgentTargetError) throw new UsageError(e.message);
    throw e;
  }
  signals.onUsr2(() => print("SIGUSR2: not sampling yet (still finding the target's inspector); nothing marked"));
  let early: string | null = null;
  void signals.stopRequested.then((reason) => {
    early ??= reason;
  });
  const found = agentInspector(pid, { inspectPort: f["inspect-port"], serverPort: f.port });
  let inspector: Awaited<typeof found>;
  try {
    // A stop asked for while the inspector is being found ends the command at once.
    const first = await Promise.race([found.then((c) => ({ c })), signals.stopRequested.then(() => null)]);
    if (first === null) {
      found.then((c) => c?.close(1_000)).catch(() => {});
      return stoppedBeforeSampling(early ?? "SIGINT");
    }
    inspector = first.c;
  } catch (e) {
    if (e instanceof AgentTargetError) throw new UsageError(e.message);
    throw e;
  }
  if (early !== null) {
    await inspector?.close(1_000);
    return stoppedBeforeSampling(early);
  }
  const heapIntervalMs = f["heap-interval-ms"] ?? defaultHeapIntervalMs(f["interval-ms"]);
  let agent: Agent;
  try {
    agent = await startAgent({
      pid,
      port: f.port ?? null,
      inspector,
      file,
      intervalMs: f["interval-ms"],
      heapIntervalMs,
      procIntervalMs: f["proc-interval-ms"],
      flushMs: FLUSH_MS,
    });
  } catch (e) {
    await inspector?.close(1_000);
    if (e instanceof AgentFileError) throw new UsageError(e.message);
    // The server went away between finding it and sampling it: one line, nothing written.
    process.stderr.write(`catchup-bench: ${escapeText((e as Error).message)}\n`);
    return EXIT.noResult;
  }
  const lanes = inspector
    ? `RSS every ${f["interval-ms"]} ms, heap every ${heapIntervalMs} ms through ${inspector.url}`
    : `RSS only, every ${f["interval-ms"]} ms: pid ${pid} has no inspector on 127.0.0.1 (start it with --inspect=127.0.0.1:0, or give --inspect-port, for heap figures and GC)`;
  print(`sampling pid ${pid}${f.port ? ` (port ${f.port})` : ""}: ${lanes}; samples to ${escapeText(file)}`);

  return sampleUntilStopped(agent, signals, print, f);
}

/** The line a stop prints: why, the samples and their span, the peaks (the post-GC heap when asked for). */
function stoppedLine(reason: string, result: AgentResult, gcAtEnd: boolean): string {
  const s = result.summary;
  const fig = (label: string, v: number | null) => `${label} ${v === null ? "n/a" : `${mib(v)} MiB`}`;
  return [
    `stopped (${escapeText(reason)}): ${s.rssSamples} RSS and ${s.heapSamples} heap samples over ${(s.durationMs / 1000).toFixed(1)} s`,
    fig("peak RSS", s.peakRssBytes),
    fig("VmHWM", s.hwmRssBytes),
    fig("peak heap", s.peakHeapBytes),
    ...(gcAtEnd
      ? [result.gcError ? `post-GC heap n/a (${result.gcError})` : fig("post-GC heap", result.postGcHeapBytes)]
      : []),
  ].join("; ");
}

/** Samples until a stop signal, --duration or the server's exit; SIGUSR2 marks and forces a GC. Resolves with the exit code. */
async function sampleUntilStopped(
  agent: Agent,
  signals: ReturnType<typeof listenForSignals>,
  print: (line: string) => void,
  f: Pick<Flags<typeof SAMPLE_OPTIONS>, "duration" | "gc-at-end">,
): Promise<number> {
  signals.onUsr2(() => {
    void agent.gcMark("SIGUSR2").then((heap) => {
      print(`SIGUSR2: marked${heap === null ? "" : `; post-GC heap ${mib(heap)} MiB`}`);
    });
  });
  const timer = f.duration === undefined ? null : setTimeout(() => signals.stop("duration"), f.duration * 1000);
  try {
    // A signal that came while sampling started stops it now: the file has its agent and end lines.
    const ended = await Promise.race([
      signals.stopRequested.then((reason) => ({ reason, bySelf: false })),
      agent.endedBySelf.then((reason) => ({ reason, bySelf: true })),
    ]);
    const result = await agent.stop({ gcAtEnd: f["gc-at-end"], reason: ended.reason });
    print(stoppedLine(ended.reason, result, f["gc-at-end"]));
    if (result.fileError) {
      process.stderr.write(`catchup-bench: ${escapeText(result.fileError)}\n`);
      return EXIT.noResult;
    }
    return ended.bySelf ? EXIT.noResult : EXIT.ok;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** A stop asked for before the samples file was created: one line, nothing written, 128 + signal. */
function stoppedBeforeSampling(reason: string): number {
  process.stderr.write(`catchup-bench: ${reason} before sampling began; nothing written\n`);
  return reason === "SIGTERM" ? EXIT.sigterm : EXIT.sigint;
}

export const sampleCommand: CommandModule<object, Args> = {
  command: SAMPLE_COMMAND.command,
  describe: SAMPLE_COMMAND.describe,
  builder: (y) => applyOptions(y, SAMPLE_COMMAND) as never,
  handler: async (argv) => {
    process.exitCode = await runSample(argv, (line) => process.stdout.write(`${line}\n`));
  },
};
