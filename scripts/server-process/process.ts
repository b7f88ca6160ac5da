// One process the harness starts (a target server, clinic, k6): spawned in a process group of its
// own, watched by a reaper, its output read line by line with a tail kept for error messages, and
// stopped politely: SIGTERM to the group, a grace period, then SIGKILL. The group is never killed
// merely because its top-level process exited (a wrapper's server may still run, or its cleanup trap).
//
// Nothing here outlives the harness: a reaper process holds a pipe from us and, when it closes (we
// exited, crashed or were SIGKILLed), sends the group and the pids we named to it SIGTERM, then
// SIGKILL after the grace period; a normal exit of the harness also sends SIGTERM to every group still
// registered at once. The reaper is started before the process it guards, and that process carries
// the reaper's token in its environment: a SIGKILL of the harness at any moment after the process
// was spawned (even before its pid reached the reaper) leaves it findable.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isAlive } from "../sampler/procfs.js";
import { withTimeout } from "../util/timeout.js";
import { groupMembers, processesWithEnv, REAPER_ENV_PREFIX, signalAll } from "./group.js";
import { setNice } from "./priority.js";
import { LineSplitter } from "./ready.js";

/** Default time a stopped process gets to clean up between SIGTERM and SIGKILL. */
export const DEFAULT_STOP_GRACE_MS = 5000;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export type StreamName = "stdout" | "stderr";

export interface SpawnOptions {
  /** Executable and arguments (no shell). Use shellScript() and ["sh", "-c", script] for a shell command. */
  argv: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** "pipe" (default): read line by line and keep a tail; "inherit": pass through to ours. */
  output?: "pipe" | "inherit";
  /** Called for each line on stdout/stderr (output "pipe" only). */
  onLine?: (line: string, stream: StreamName) => void;
  /** Grace between SIGTERM and SIGKILL, for stop() and for the reaper. */
  graceMs?: number;
  /** How much of stderr to keep for stderrTail() (default 64 KiB of text). */
  stderrChars?: number;
  /** Nice value of the process (and of its reaper) from its start (priority.ts); default: ours. */
  nice?: number;
}

export interface TargetProcess {
  /** The spawned pid; it leads the process group. */
  readonly pid: number;
  readonly child: ChildProcess;
  /** The spawned (top-level) process's exit. */
  readonly exited: Promise<ExitInfo>;
  exitInfo(): ExitInfo | null;
  /** The last lines of stderr (pipe mode). */
  stderrTail(lines?: number): string;
  /** The last lines of stdout and stderr interleaved as they came (pipe mode). */
  outputTail(chars?: number): string;
  /** Adds a line listener; returns its remover. */
  onLine(listener: (line: string, stream: StreamName) => void): () => void;
  /** A pid outside the group that belongs to this target (a `setsid` server): stopped and reaped with it. */
  adopt(pid: number): void;
  /**
   * Live processes carrying this process's reaper token in their environment: everything it started,
   * also what left the group and the tree (`setsid`, a daemonizing launcher, a side daemon).
   */
  marked(): number[];
  /** True while any process of the group, an adopted pid or a marked process is alive. */
  running(): boolean;
  /** Sends sig to the group and adopted pids. */
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, grace, SIGKILL; resolves once nothing of it is left (at most graceMs + 2 s). */
  stop(graceMs?: number): Promise<ExitInfo>;
  /** SIGKILL now, without waiting. */
  kill(): void;
}

/**
 * A compiled file's path: the first candidate that exists (where it sits beside the compiled module,
 * then under dist/ for a module running from source in tests), else the first.
 */
export function compiledPath(compiled: URL, fromSource: URL): string {
  const candidates = [compiled, fromSource].map((u) => fileURLToPath(u));
  return candidates.find((p) => existsSync(p)) ?? (candidates[0] as string);
}

/** The compiled reaper. */
export const REAPER_MAIN = compiledPath(
  new URL("./reaper.js", import.meta.url),
  new URL("../../dist/scripts/server-process/reaper.js", import.meta.url),
);

// Processes still running, SIGTERMed synchronously if the harness exits without stopping them (the
// reaper follows up with SIGKILL after the grace).
const live = new Set<TargetProcess>();
let exitHookInstalled = false;
function register(p: TargetProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const q of live) q.signal("SIGTERM");
    });
  }
  live.add(p);
}

/** SIGKILLs every process still running (a second Ctrl-C: do not wait for anything). */
export function killAllNow(): void {
  for (const p of live) p.kill();
  live.clear();
}

/** The last lines of a stream, at most maxChars of text in all. */
class Tail {
  private items: string[] = [];
  private chars = 0;
  constructor(private readonly maxChars: number) {}
  push(line: string): void {
    this.items.push(line);
    this.chars += line.length + 1;
    while (this.chars > this.maxChars && this.items.length > 1) this.chars -= (this.items.shift() as string).length + 1;
  }
  lines(n: number): string[] {
    const all = this.items.length && this.items.at(-1) === "" ? this.items.slice(0, -1) : this.items;
    return all.slice(-n);
  }
  text(): string {
    return this.items.map((l) => `${l}\n`).join("");
  }
}

const until = (cond: () => boolean, timeoutMs: number, pollMs = 20): Promise<boolean> =>
  new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs;
    const check = () => {
      if (cond()) return resolve(true);
      if (Date.now() >= deadline) return resolve(false);
      setTimeout(check, pollMs);
    };
    check();
  });

/**
 * Set-up, first step: the reaper. It holds our pipe from before the process exists, so there is no
 * moment when the process runs unguarded. It learns the process group on the pipe; until then (and
 * for anything that left the group) it finds the process by the token in its environment.
 */
function startReaper(token: string, graceMs: number) {
  const reaper = spawn(process.execPath, [REAPER_MAIN, token, String(graceMs)], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  reaper.unref();
  reaper.stdin?.on("error", () => undefined); // a dismissed reaper's pipe is not ours to report
  (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  reaper.once("error", () => undefined); // reported below, if the process is spawned without it
  let dismissed = false;
  const dismiss = () => {
    if (dismissed) return;
    dismissed = true;
    reaper.kill("SIGTERM");
  };
  if (reaper.pid === undefined) throw new Error(`cannot start the reaper (${process.execPath} ${REAPER_MAIN})`);
  return {
    pid: reaper.pid,
    dismiss,
    /** Tells the reaper a line ("pgid N", "pid N") while it is still on guard. */
    tell: (line: string) => {
      if (!dismissed) reaper.stdin?.write(`${line}\n`);
    },
  };
}

/** Set-up, second step: the process in a group of its own, carrying the reaper's token. */
function spawnInGroup(options: SpawnOptions, token: string, dismissReaper: () => void) {
  const [file, ...args] = options.argv as [string, ...string[]];
  const piped = (options.output ?? "pipe") === "pipe";
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      // Stdin is a pipe we hold: the bundled server's lifeline (--exit-with-parent).
      stdio: ["pipe", piped ? "pipe" : "inherit", piped ? "pipe" : "inherit"],
      detached: true,
      env: { ...(options.env ?? process.env), [`${REAPER_ENV_PREFIX}${token}`]: "1" },
      cwd: options.cwd,
    });
  } catch (e) {
    dismissReaper();
    throw e;
  }
  child.stdin?.on("error", () => undefined); // EPIPE from a process that ignores its stdin is not ours to report
  let spawnError: Error | null = null;
  let exit: ExitInfo | null = null;
  // A process that cannot be spawned (ENOENT) reports "error" and never "exit".
  child.once("error", (e) => {
    spawnError = e;
    if (exit === null && child.pid !== undefined && child.exitCode === null) child.emit("exit", 127, null);
  });
  const pgid = child.pid;
  if (pgid === undefined) {
    dismissReaper();
    throw new Error(`cannot start ${file}: ${spawnError ?? "spawn failed (no such file, or not executable)"}`);
  }
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  return { child, pgid, exited, exitInfo: () => exit };
}

/** Run: the child's output read line by line, kept in tails and told to listeners. */
function readOutput(child: ChildProcess, stderrChars: number, onLine: SpawnOptions["onLine"]) {
  const stderr = new Tail(stderrChars);
  const output = new Tail(65_536);
  const listeners = new Set<(line: string, stream: StreamName) => void>();
  if (onLine) listeners.add(onLine);
  const read = (stream: NodeJS.ReadableStream | null, name: StreamName) => {
    if (!stream) return;
    const lines = new LineSplitter();
    const emit = (line: string) => {
      if (name === "stderr") stderr.push(line);
      output.push(line);
      for (const l of listeners) l(line, name);
    };
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => {
      for (const line of lines.push(d)) emit(line);
    });
    stream.on("end", () => {
      const last = lines.flush();
      if (last !== null) emit(last);
    });
  };
  read(child.stdout, "stdout");
  read(child.stderr, "stderr");
  return { stderr, output, listeners };
}

/**
 * Stop: SIGTERM, SIGKILL after the grace, then drain the last output lines. `finished` runs once
 * nothing is left running.
 */
async function stopAndDrain(
  p: Pick<TargetProcess, "child" | "exited" | "exitInfo" | "running" | "signal">,
  grace: number,
  closed: Promise<void>,
  finished: () => void,
): Promise<ExitInfo> {
  if (p.running()) {
    p.signal("SIGTERM");
    if (!(await until(() => !p.running(), grace))) {
      p.signal("SIGKILL");
      await until(() => !p.running(), 2000);
    }
  }
  finished();
  // The last output lines (for stderrTail) arrive until "close"; a process outside the group
  // holding the pipes (adopted, already signalled) must not hold us long. (Neither wait leaves a timer
  // behind: a harness that has stopped everything exits at once, not a second later.)
  await withTimeout(closed, 1000, "output pipes").catch(() => undefined);
  // Whatever still holds its pipes must not keep the harness's event loop (and so the harness) alive.
  for (const stream of [p.child.stdin, p.child.stdout, p.child.stderr]) stream?.destroy();
  // The top-level exit has been seen by now (not running); "exit" can trail the group's end briefly.
  return p.exitInfo() ?? (await withTimeout(p.exited, 1000, "exit").catch(() => ({ code: null, signal: null })));
}

/**
 * Lowers the priority of processes just spawned, before their runtime starts its other threads
 * (spawn returns once exec succeeded), so those threads inherit it.
 */
function lowerPriority(pids: readonly (number | undefined)[], nice: number): void {
  for (const pid of pids) if (pid !== undefined) setNice(pid, nice);
}

/** Starts a process in its own group with a reaper; throws if it cannot be spawned. */
export function spawnProcess(options: SpawnOptions): TargetProcess {
  const graceMs = options.graceMs ?? DEFAULT_STOP_GRACE_MS;
  if (!options.argv[0]) throw new Error("spawnProcess: empty argv");
  const token = randomBytes(8).toString("hex");
  const reaper = startReaper(token, graceMs);
  const { child, pgid, exited, exitInfo } = spawnInGroup(options, token, reaper.dismiss);
  if (options.nice !== undefined) lowerPriority([reaper.pid, pgid], options.nice);
  // From now on the reaper stops the whole group (and the tree below its leader) when our pipe closes.
  reaper.tell(`pgid ${pgid}`);
  const adopted = new Set<number>();
  // "close": every holder of its output pipes is gone and the last lines have been read.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const { stderr, output, listeners } = readOutput(child, options.stderrChars ?? 65_536, options.onLine);

  // The normal stop reaches what the reaper reaches: the group, adopted pids and the token's carriers.
  const marker = `${REAPER_ENV_PREFIX}${token}=`;
  const marked = () => processesWithEnv(marker).filter((p) => p !== process.pid && isAlive(p));
  const running = () =>
    exitInfo() === null || groupMembers(pgid).length > 0 || [...adopted].some(isAlive) || marked().length > 0;
  const signal = (sig: NodeJS.Signals) => {
    // Members of the group get the group's signal only: a second SIGTERM would cut a wrapper's cleanup trap short.
    const inGroup = new Set(groupMembers(pgid));
    signalAll(
      pgid,
      [...adopted, ...marked()].filter((p) => !inGroup.has(p)),
      sig,
    );
  };
  const finished = () => {
    live.delete(proc);
    reaper.dismiss();
  };
  let stopping: Promise<ExitInfo> | null = null;
  const proc: TargetProcess = {
    pid: pgid,
    child,
    exited,
    exitInfo,
    stderrTail: (n = 15) => stderr.lines(n).join("\n"),
    outputTail: (chars = 2000) => output.text().slice(-chars),
    onLine: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    adopt: (pid) => {
      if (pid === pgid || adopted.has(pid)) return;
      adopted.add(pid);
      reaper.tell(`pid ${pid}`);
    },
    marked,
    running,
    signal,
    stop: (grace = graceMs) => {
      stopping ??= stopAndDrain(proc, grace, closed, finished);
      return stopping;
    },
    kill: () => {
      signal("SIGKILL");
    },
  };
  register(proc);
  // The top-level process ended and nothing of the group is left (k6 finished, a server exited):
  // nothing to reap. If its group lives on, the target is still running and stop() ends it.
  exited.then(() => {
    if (!running()) finished();
  });
  return proc;
}
