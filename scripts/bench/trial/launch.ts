// A bench target: the bundled server or a foreign COMMAND, started through scripts/server-process/ (process
// group, reaper, stop with grace), made ready (ready line, --ready-line or port, then upgrade and
// warm-up with retries), with the process that really listens and its inspector located.
import { DEV_TOKEN, SUBSCRIBE_TAG } from "../../../scenarios/lib/protocol.js";
import { authenticate } from "../../../scenarios/lib/session.js";
import { connectInspector, findInspector, type InspectorClient } from "../../sampler/inspector.js";
import { findListeningPid, isAlive, listeningPidNow } from "../../sampler/procfs.js";
import { startBundled } from "../../server-process/bundled.js";
import { fillCommand, shellScript, TargetError } from "../../server-process/command.js";
import { freePort } from "../../server-process/free-port.js";
import {
  DEFAULT_STOP_GRACE_MS,
  type ExitInfo,
  spawnProcess,
  type TargetProcess,
} from "../../server-process/process.js";
import { parseReadyLine } from "../../server-process/ready.js";
import { describeExit, NotReadyError, waitReady } from "../../server-process/wait.js";
import { WarmUpError, warmUp } from "../../server-process/warmup.js";
import type { TargetSpec } from "../run/config.js";

export { TargetError } from "../../server-process/command.js";
export type { ExitInfo } from "../../server-process/process.js";

/** The variable a bundled server reads a non-default token from (--token-env). */
export const SERVER_TOKEN_ENV = "CATCHUP_SERVER_TOKEN";

/** How long one connect + upgrade attempt may take during warm-up (separate from the trial timeout). */
export const CONNECT_TIMEOUT_MS = 2000;

export interface TargetOptions {
  /** The private copy of the fixture this target serves. */
  db: string;
  urlPath: string;
  token: string;
  /** Extra headers of the WebSocket upgrade (the warm-up sends them too). */
  headers?: Record<string, string>;
  startTimeoutMs: number;
  /** Connect to the server's inspector (memory cells sample heap through it). */
  inspect: boolean;
  /** A foreign target is ready when a line of its output matches (else: its port accepts). */
  readyLine?: RegExp | null;
  /** SIGTERM-to-SIGKILL grace when stopping. */
  stopGraceMs?: number;
  /** Nice value of the target from its start (a memory trial's server started ahead: server-process/priority.ts). */
  nice?: number;
  /** Aborting stops a target that is still starting, at once (Ctrl-C). */
  signal?: AbortSignal;
  subscribeTag?: string;
  /**
   * The warm-up session run (with retries) once the target upgrades a WebSocket; null: the target
   * is ready once it upgrades one.
   */
  warmUpSession?: ((url: string) => Promise<{ ok: boolean; error: string | null }>) | null;
}

export interface Target {
  readonly name: string;
  readonly url: string;
  /** The token its clients send (options.token). */
  readonly token: string;
  readonly port: number;
  /** The process that owns the listening socket (the one to sample), not necessarily the spawned one. */
  readonly pid: number;
  /** A connected inspector client of `pid` when options.inspect (closed by stop()). */
  readonly inspector: InspectorClient | null;
  alive(): boolean;
  exitInfo(): ExitInfo | null;
  /** The server's end: the spawned process exited and the listening process is gone. */
  readonly exited: Promise<ExitInfo>;
  stderrTail(lines?: number): string;
  /** "exit code 3" / "signal SIGKILL" plus the last stderr lines; for trial errors. */
  describeExit(): string;
  stop(graceMs?: number): Promise<ExitInfo>;
}

/** The port a --ready-line match names: its `port` group, else its first group when that is a number. */
function portFromMatch(m: RegExpExecArray): number | null {
  const text = m.groups?.port ?? (m[1] && /^\d+$/.test(m[1]) ? m[1] : undefined);
  const n = Number(text);
  return text !== undefined && Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
}

/** A target process started and listening: the process to sample and where its inspector is, if known. */
interface Launched {
  proc: TargetProcess;
  port: number;
  pid: number;
  inspectorUrl: string | null;
}

/** What each start-up step needs: the spec, the options, the stop grace and the shared deadline. */
interface Start {
  spec: TargetSpec;
  options: TargetOptions;
  graceMs: number;
  deadline: number;
}

/** What is left of the start timeout (at least a second). */
const left = (s: Start) => Math.max(1000, s.deadline - Date.now());

/** Stops the half-started target and throws a TargetError naming it, with its last stderr lines. */
async function failWith(s: Start, p: TargetProcess, why: string): Promise<never> {
  await p.stop(s.graceMs);
  const tail = p.stderrTail();
  throw new TargetError(
    `target ${s.spec.name} ${why}${tail ? `; last stderr lines:\n${tail}` : " (no stderr output)"}`,
  );
}

/** Set-up, bundled: the server prints its ready line with its URL and pid. */
async function launchBundled(s: Start, spec: Extract<TargetSpec, { kind: "bundled" }>): Promise<Launched> {
  const { options } = s;
  try {
    const server = await startBundled({
      db: options.db,
      inspect: options.inspect,
      nodeArgs: spec.nodeArgs ? [...spec.nodeArgs] : undefined,
      // The token goes through the environment: on the command line, ps would show it to every user.
      extra: [
        "--delivery",
        spec.delivery,
        ...(options.token !== DEV_TOKEN ? ["--token-env", SERVER_TOKEN_ENV] : []),
        ...spec.serverArgs,
      ],
      env: options.token !== DEV_TOKEN ? { [SERVER_TOKEN_ENV]: options.token } : undefined,
      timeoutMs: options.startTimeoutMs,
      graceMs: s.graceMs,
      signal: options.signal,
      nice: options.nice,
    });
    const port = Number(new URL(server.ready.url).port);
    return { proc: server.proc, port, pid: server.ready.pid, inspectorUrl: server.inspectorUrl };
  } catch (e) {
    throw new TargetError(`target ${spec.name}: ${(e as Error).message.replace(/^bundled server /, "")}`);
  }
}

/** Set-up, foreign COMMAND: spawned under sh, ready by line or port, its listening process found. */
async function launchCommand(s: Start, spec: Extract<TargetSpec, { kind: "command" }>): Promise<Launched> {
  const port = spec.command.includes("{port}") ? await freePort() : 0;
  // Every Node process of the target opens its inspector on a loopback port; findInspector picks the listening one's.
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ""} --inspect=127.0.0.1:0`.trim();
  let proc: TargetProcess;
  try {
    proc = spawnProcess({
      argv: ["sh", "-c", shellScript(fillCommand(spec.command, port, s.options.db))],
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
      cwd: spec.cwd,
      graceMs: s.graceMs,
      nice: s.options.nice,
    });
  } catch (e) {
    throw new TargetError(`target ${spec.name}: could not be spawned (${(e as Error).message})`);
  }
  const listeningPort = await commandReadyPort(s, proc, port);
  return { proc, port: listeningPort, pid: await listeningPid(s, proc, listeningPort), inspectorUrl: null };
}

/** Waits for a foreign target's ready line or port; returns the port it listens on. */
async function commandReadyPort(s: Start, proc: TargetProcess, port: number): Promise<number> {
  const readyLine = s.options.readyLine ?? null;
  let readyPort: number | null = null;
  try {
    const r = await waitReady(proc, {
      // A user's line, or (without one) the bundled-style JSON ready line some servers print.
      line: (line) => {
        if (readyLine) {
          const m = readyLine.exec(line);
          return m ? { port: portFromMatch(m) } : null;
        }
        const ready = parseReadyLine(line);
        return ready ? { port: Number(new URL(ready.url).port) } : null;
      },
      port: readyLine === null && port > 0 ? port : undefined,
      timeoutMs: s.options.startTimeoutMs,
      signal: s.options.signal,
    });
    readyPort = "line" in r ? (r.line.port ?? (port > 0 ? port : null)) : port;
  } catch (e) {
    if (!(e instanceof NotReadyError)) throw e;
    const what =
      e.reason === "timeout"
        ? readyLine
          ? `no line matching --ready-line ${readyLine} on stdout or stderr`
          : port > 0
            ? `port ${port} did not accept connections`
            : "no ready line on stdout; put {port} in the command or pass --ready-line"
        : null;
    return failWith(s, proc, `${e.message}${what ? ` (${what})` : ""}`);
  }
  if (readyPort === null) {
    return failWith(
      s,
      proc,
      `printed its ready line, but no port is known: put {port} in the command or a (?<port>\\d+) group in --ready-line`,
    );
  }
  return readyPort;
}

/** The process that owns the listening socket (the one to sample), adopted so a stop reaches it. */
async function listeningPid(s: Start, proc: TargetProcess, port: number): Promise<number> {
  try {
    const pid = await findListeningPid(proc.pid, port, { timeoutMs: left(s) }).catch((e) => {
      // A daemonizing launcher (`setsid server & exit 0`): its server is out of the tree, not of the token's reach.
      const daemon = proc.marked().find((m) => listeningPidNow(m, port) === m);
      if (daemon === undefined) throw e;
      return daemon;
    });
    // A `setsid` server is out of the group's reach: stop and reap it by pid too.
    proc.adopt(pid);
    return pid;
  } catch (e) {
    return failWith(
      s,
      proc,
      `accepts connections on port ${port} but its process was not found (${(e as Error).message})`,
    );
  }
}

/** The server's end: the top-level exit, and (behind a wrapper) the listening process gone too. */
function serverEnd({ proc, pid }: Launched) {
  const topIsServer = pid === proc.pid;
  const gone = () => (topIsServer ? proc.exitInfo() !== null : proc.exitInfo() !== null && !isAlive(pid));
  const exited = topIsServer
    ? proc.exited
    : new Promise<ExitInfo>((resolve) => {
        const poll = setInterval(() => {
          if (gone()) {
            clearInterval(poll);
            resolve(proc.exitInfo() as ExitInfo);
          }
        }, 100);
        poll.unref();
      });
  return { gone, exited };
}

/** Run: upgrade and warm-up with retries, when the options ask for them. */
async function warmTarget(s: Start, launched: Launched, url: string, gone: () => boolean): Promise<void> {
  const { options } = s;
  const session = options.warmUpSession;
  if (session === undefined) return;
  const auth = authenticate(url, options.token, "header", options.headers);
  try {
    await warmUp({
      url,
      headers: (auth.params.headers as Record<string, string> | undefined) ?? {},
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      deadline: s.deadline,
      startTimeoutMs: options.startTimeoutMs,
      subscribeTag: options.subscribeTag ?? SUBSCRIBE_TAG,
      session: session ? () => session(url) : null,
      signal: options.signal,
      gone,
    });
  } catch (e) {
    if (!(e instanceof WarmUpError)) throw e;
    return failWith(s, launched.proc, `at ${url} ${e.message}`);
  }
}

/** The listening process's inspector, when the options ask for it. */
async function attachInspector(s: Start, launched: Launched): Promise<InspectorClient | null> {
  if (!s.options.inspect) return null;
  const { inspectorUrl, pid, port } = launched;
  try {
    // A wrapper chain prints several inspector lines (npm, npx, ...): only trust stderr for the bundled server.
    return inspectorUrl
      ? await connectInspector(inspectorUrl, { timeoutMs: left(s) })
      : await findInspector(pid, { excludePorts: [port], timeoutMs: left(s) });
  } catch (e) {
    return failWith(s, launched.proc, `has no reachable inspector on 127.0.0.1 (${(e as Error).message})`);
  }
}

/** Starts a target and resolves once it is ready; rejects with a TargetError naming it otherwise. */
export async function startTarget(spec: TargetSpec, options: TargetOptions): Promise<Target> {
  const graceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
  const s: Start = { spec, options, graceMs, deadline: Date.now() + options.startTimeoutMs };
  const launched = spec.kind === "bundled" ? await launchBundled(s, spec) : await launchCommand(s, spec);
  const { proc, pid, port } = launched;
  const url = `ws://127.0.0.1:${port}${options.urlPath}`;
  const { gone, exited } = serverEnd(launched);
  await warmTarget(s, launched, url, gone);
  const inspector = await attachInspector(s, launched);
  return {
    name: spec.name,
    url,
    token: options.token,
    port,
    pid,
    inspector,
    // /proc knows first: a killed server is a zombie before its parent hears the exit.
    alive: () => !gone() && isAlive(pid),
    exitInfo: () => (gone() ? proc.exitInfo() : null),
    exited,
    stderrTail: (n) => proc.stderrTail(n),
    describeExit: () => {
      const tail = proc.stderrTail(5);
      const state = gone()
        ? `exited (${describeExit(proc.exitInfo())})`
        : isAlive(pid)
          ? "is running"
          : `lost its server process ${pid}`;
      return `target ${spec.name} ${state}${tail ? `; last stderr lines: ${tail.replace(/\n/g, " | ")}` : ""}`;
    },
    // Stop: the inspector first (briefly), then the process group with grace.
    stop: async (grace = graceMs): Promise<ExitInfo> => {
      await inspector?.close(500).catch(() => undefined);
      return proc.stop(grace);
    },
  };
}
