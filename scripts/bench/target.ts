// Target lifecycle: start a server (the bundled one, or a foreign COMMAND through `sh -c`) in its own
// process group, wait until it is ready, find the process that really listens and its inspector,
// and stop it (SIGTERM to the group, SIGKILL after a grace period). Nothing here outlives the
// harness: the bundled server exits when its stdin closes (--exit-with-parent), a foreign command
// is watched by a reaper that kills its group, its descendants and its listening pid when the
// harness's pipe closes, and a normal exit of the harness kills every group (and listening pid) still registered.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { bundledServerArgs } from "../bundled-server.js";
import { connectInspector, findInspector, type InspectorClient } from "../sampler/inspector.js";
import { findListeningPid, isAlive } from "../sampler/procfs.js";
import type { TargetSpec } from "./config.js";

// The bundled server's entry point and arguments live in ../bundled-server.ts (the fuzzer starts it too).
export { bundledServerArgs, SERVER_MAIN } from "../bundled-server.js";
export const REAPER_MAIN = fileURLToPath(new URL("./reaper.js", import.meta.url));

export class TargetError extends Error {
  override readonly name = "TargetError";
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TargetOptions {
  /** The private copy of the fixture this target serves. */
  db: string;
  urlPath: string;
  token: string;
  startTimeoutMs: number;
  /** Connect to the server's inspector (memory cells sample heap through it). */
  inspect: boolean;
}

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  /** The process that owns the listening socket (the one to sample), not necessarily the spawned one. */
  readonly pid: number;
  /** A connected inspector client of `pid` when options.inspect (closed by stop()). */
  readonly inspector: InspectorClient | null;
  alive(): boolean;
  exitInfo(): ExitInfo | null;
  readonly exited: Promise<ExitInfo>;
  stderrTail(lines?: number): string;
  /** "exit code 3" / "signal SIGKILL" plus the last stderr lines; for trial errors. */
  describeExit(): string;
  stop(graceMs?: number): Promise<ExitInfo>;
}

// Process groups still running, each with the listening pid when it is known (a `setsid` server has
// left the group), killed synchronously if the harness exits without stopping them.
const liveGroups = new Map<number, number | null>();
let exitHookInstalled = false;
function registerGroup(pgid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killAllTargetsNow);
  }
  liveGroups.set(pgid, null);
}

/** Sends sig to the group pgid and to pid (when known and not the group leader); errors mean "already gone". */
function signalTarget(pgid: number, pid: number | null, sig: NodeJS.Signals): void {
  for (const p of pid !== null && pid !== pgid ? [-pgid, pid] : [-pgid]) {
    try {
      process.kill(p, sig);
    } catch {
      // already gone
    }
  }
}

/** SIGKILLs every target group still running, and its listening pid (used on exit and as a last resort). */
export function killAllTargetsNow(): void {
  for (const [pgid, pid] of liveGroups) signalTarget(pgid, pid, "SIGKILL");
  liveGroups.clear();
}

/** A free TCP port on 127.0.0.1 (the kernel picks it; there is a small race until the target binds it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  server.close();
  await once(server, "close");
  return port;
}

function canConnect(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Substitutes {port} and {db} in a foreign target's command. The db path is inserted as is (it may
 * sit inside the user's own quotes), so it must be made of shell-safe characters.
 */
export function fillCommand(command: string, port: number, db: string): string {
  if (!/^[A-Za-z0-9._/-]+$/.test(db)) {
    throw new TargetError(
      `fixture copy path ${JSON.stringify(db)} has characters unsafe in a shell command; set TMPDIR to a plain path`,
    );
  }
  return command.split("{port}").join(String(port)).split("{db}").join(db);
}

const INSPECTOR_RE = /Debugger listening on (ws:\/\/\S+)/;

interface ReadyLine {
  url: string;
  pid: number;
}

function parseReadyLine(line: string): ReadyLine | null {
  if (!line.startsWith("{")) return null;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    if (o.event === "listening" && typeof o.url === "string") return { url: o.url, pid: Number(o.pid) };
  } catch {
    // not the ready line
  }
  return null;
}

function describe(info: ExitInfo | null): string {
  if (!info) return "still running";
  return info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
}

/** Starts a target and resolves once it is ready; rejects with a TargetError naming it otherwise. */
export async function startTarget(spec: TargetSpec, options: TargetOptions): Promise<Target> {
  const port = spec.kind === "command" && spec.command.includes("{port}") ? await freePort() : 0;
  let child: ChildProcess;
  let reaper: ChildProcess | null = null;
  if (spec.kind === "bundled") {
    const args = bundledServerArgs(options.db, {
      inspect: options.inspect,
      extra: [
        "--delivery",
        spec.delivery,
        ...(options.token !== "catchup-dev-token" ? ["--token", options.token] : []),
      ],
    });
    child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
  } else {
    const nodeOptions = `${process.env.NODE_OPTIONS ?? ""} --inspect=127.0.0.1:0`.trim();
    child = spawn("sh", ["-c", fillCommand(spec.command, port, options.db)], {
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    });
  }
  const pgid = child.pid;
  if (pgid === undefined) {
    await once(child, "error").catch(() => undefined);
    throw new TargetError(`target ${spec.name}: could not be spawned`);
  }
  registerGroup(pgid);
  if (spec.kind === "command") {
    // The reaper holds our pipe; when it closes (we died, even by SIGKILL) it kills the group.
    reaper = spawn(process.execPath, [REAPER_MAIN, String(pgid)], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    reaper.unref();
    reaper.stdin?.on("error", () => undefined); // a dismissed reaper's pipe is not ours to report
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }

  let stderr = "";
  let exit: ExitInfo | null = null;
  /** The process that owns the listening socket, once located (it may sit outside the group). */
  let listeningPid: number | null = null;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      liveGroups.delete(pgid);
      // The wrapper is gone; anything it left in the group (or the server it started elsewhere) goes too.
      signalTarget(pgid, listeningPid, "SIGKILL");
      reaper?.kill("SIGTERM");
      resolve(exit);
    });
  });
  const stderrTail = (lines = 15) => stderr.trimEnd().split("\n").slice(-lines).join("\n");

  let inspectorUrl: string | null = null;
  let ready: ReadyLine | null = null;
  let wake: () => void = () => undefined;
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-65_536);
    if (!inspectorUrl) {
      const m = INSPECTOR_RE.exec(stderr);
      if (m?.[1]) {
        inspectorUrl = m[1];
        wake();
      }
    }
  });
  let stdoutBuf = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    if (ready) return;
    stdoutBuf += d;
    let nl = stdoutBuf.indexOf("\n");
    while (nl >= 0 && !ready) {
      ready = parseReadyLine(stdoutBuf.slice(0, nl).trim());
      stdoutBuf = stdoutBuf.slice(nl + 1);
      nl = stdoutBuf.indexOf("\n");
    }
    if (ready) wake();
    else stdoutBuf = stdoutBuf.slice(-65_536);
  });
  // Stdin stays open: it is the bundled server's lifeline (--exit-with-parent); EPIPE is not ours to report.
  child.stdin?.on("error", () => undefined);

  let inspectorClient: InspectorClient | null = null;
  const stop = async (graceMs = 3000): Promise<ExitInfo> => {
    await inspectorClient?.close(500).catch(() => undefined);
    if (exit) return exit;
    signalTarget(pgid, listeningPid, "SIGTERM");
    const timer = setTimeout(() => signalTarget(pgid, listeningPid, "SIGKILL"), graceMs);
    const info = await exited;
    clearTimeout(timer);
    return info;
  };

  const deadline = Date.now() + options.startTimeoutMs;
  const fail = async (why: string): Promise<never> => {
    await stop(500);
    const tail = stderrTail();
    throw new TargetError(
      `target ${spec.name} ${why}${tail ? `; last stderr lines:\n${tail}` : " (no stderr output)"}`,
    );
  };

  // Wait for readiness: the ready line (bundled, or a foreign one that prints it) or the port accepting.
  let listeningPort = port;
  for (;;) {
    if (exit) return fail(`exited before it was ready (${describe(exit)})`);
    if (ready) {
      listeningPort = Number(new URL((ready as ReadyLine).url).port);
      if (spec.kind === "command" || !options.inspect || inspectorUrl) break;
    } else if (spec.kind === "command" && port > 0 && (await canConnect(port, 250))) {
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      return fail(
        `never became ready within ${options.startTimeoutMs} ms (${port > 0 ? `port ${port} did not accept connections` : "no ready line on stdout"})`,
      );
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.min(50, left));
      wake = () => {
        clearTimeout(t);
        resolve();
      };
      exited.then(() => wake());
    });
    wake = () => undefined;
  }

  let pid = spec.kind === "bundled" ? ((ready as ReadyLine | null)?.pid ?? pgid) : pgid;
  let inspector: InspectorClient | null = null;
  const left = () => Math.max(1000, deadline - Date.now());
  if (spec.kind === "command") {
    try {
      pid = await findListeningPid(pgid, listeningPort, { timeoutMs: left() });
      listeningPid = pid;
      if (liveGroups.has(pgid)) liveGroups.set(pgid, pid);
      // The reaper kills this pid too if we die: a `setsid` server is out of the group's reach.
      reaper?.stdin?.write(`pid ${pid}\n`);
    } catch (e) {
      return fail(
        `accepts connections on port ${listeningPort} but its process was not found (${(e as Error).message})`,
      );
    }
  }
  if (options.inspect) {
    try {
      // A wrapper chain prints several inspector lines (npm, npx, ...): only trust stderr for the bundled server.
      const known = spec.kind === "bundled" ? (inspectorUrl as string | null) : null;
      inspector = known
        ? await connectInspector(known, { timeoutMs: left() })
        : await findInspector(pid, { excludePorts: [listeningPort], timeoutMs: left() });
    } catch (e) {
      return fail(`has no reachable inspector on 127.0.0.1 (${(e as Error).message})`);
    }
  }
  inspectorClient = inspector;
  const url = `ws://127.0.0.1:${listeningPort}${options.urlPath}`;
  return {
    name: spec.name,
    url,
    port: listeningPort,
    pid,
    inspector,
    // /proc knows first: a killed server is a zombie before its parent hears the exit.
    alive: () => exit === null && isAlive(pid),
    exitInfo: () => exit,
    exited,
    stderrTail,
    describeExit: () => {
      const tail = stderrTail(5);
      const state = exit
        ? `exited (${describe(exit)})`
        : isAlive(pid)
          ? "is running"
          : `lost its server process ${pid}`;
      return `target ${spec.name} ${state}${tail ? `; last stderr lines: ${tail.replace(/\n/g, " | ")}` : ""}`;
    },
    stop,
  };
}
