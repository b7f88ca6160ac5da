// Runs the bundled server under clinic.js (an inspection aid, not the measurement): start
// `clinic <tool> -- node dist/server-under-test/main.js ...`, wait for the server's ready line, drive
// a latency case with the Node driver for a while, stop the server with SIGINT so clinic writes its
// HTML, and leave that at <out>/clinic/<tool>.html.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURE_DATA_DIR } from "../../fixtures/options.js";
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { ensureFixture, userFixture } from "../bench/fixtures.js";
import { afterSequenceFor } from "../bench/plan.js";
import { SERVER_MAIN } from "../bundled-server.js";
import { runSessions } from "../driver/node.js";
import type { LatencyCase } from "../results.js";
import { withTimeout } from "../timeout.js";
import {
  type ClinicTool,
  clinicArgs,
  clinicStopsServer,
  parseHtmlPath,
  parseReadyLine,
  type ReadyLine,
} from "./tools.js";

/** The project root: the nearest directory up from this module holding package.json (works from dist/ and from source). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the project root (package.json) above the clinic runner");
    dir = up;
  }
  return dir;
}
const ROOT = projectRoot();
// Measured and helper processes run compiled JS from dist/.
const HOLD_SCRIPT = join(ROOT, "dist", "scripts", "clinic", "hold.js");
// The bench's reaper (scripts/bench/reaper.ts): it kills clinic's process group when our pipe closes.
const REAPER_SCRIPT = join(ROOT, "dist", "scripts", "bench", "reaper.js");
const DEV_TOKEN = "catchup-dev-token";
const SUBSCRIBE_PAYLOAD = '{"afterSequence":{after},"requestCompletionMarker":true}';

export interface ClinicOptions {
  tool: ClinicTool;
  case: LatencyCase;
  clients: number;
  scriptBytes: number;
  variant: "legacy" | "batched";
  durationS: number;
  ackDelayMs: number;
  /** Run directory: the report lands at <out>/clinic/<tool>.html. */
  out: string;
  /** A fixture to use; else the default one for scriptBytes (built into fixturesDir if missing). */
  fixture?: string | null;
  fixturesDir?: string;
  projects?: number;
  events?: number;
  readyTimeoutMs?: number;
  /** How long clinic may take to analyse and write its HTML after the server stops. */
  reportTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface ClinicOutcome {
  htmlPath: string;
  /** clinic's own output directory (raw data; `clinic <tool> --visualize-only DIR` re-renders it). */
  dataDir: string;
  sessions: number;
  okSessions: number;
  firstError: string | null;
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = "";
  stream.setEncoding("utf8");
  stream.on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      onLine(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
}

type LineListeners = Set<(line: string) => void>;

function waitReady(
  child: ChildProcess,
  listeners: LineListeners,
  timeoutMs: number,
  output: () => string,
): Promise<ReadyLine> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`the server under clinic was not ready within ${timeoutMs} ms; output:\n${output().slice(-2000)}`),
      );
    }, timeoutMs);
    const onLine = (line: string) => {
      const ready = parseReadyLine(line.trim());
      if (ready) {
        cleanup();
        resolvePromise(ready);
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(
        new Error(
          `clinic exited (code ${code}, signal ${signal}) before the server was ready; output:\n${output().slice(-2000)}`,
        ),
      );
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off("exit", onExit);
      listeners.delete(onLine);
    };
    listeners.add(onLine);
    child.once("exit", onExit);
  });
}

/** Newest .html directly in dir (fallback when clinic's "Generated HTML" line was not seen). */
function newestHtml(dir: string): string | null {
  try {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".html"))
      .map((f) => join(dir, f));
    files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    return files[0] ?? null;
  } catch {
    return null;
  }
}

/** A loopback control socket for the hold command: resolves the connection clinic's --on-port made. */
async function controlServer(): Promise<{ server: Server; port: number; connection: Promise<Socket> }> {
  const server = createServer();
  const connection = new Promise<Socket>((resolvePromise) => server.once("connection", resolvePromise));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("control socket has no port");
  return { server, port: address.port, connection };
}

/**
 * Starts the bench's reaper for the process group pgid. It holds a pipe from us (unref'd, so it keeps
 * nothing alive); when the pipe closes — we exited, crashed or were SIGKILLed — it kills the group.
 * SIGTERM dismisses it.
 */
function startReaper(pgid: number): ChildProcess {
  const reaper = spawn(process.execPath, [REAPER_SCRIPT, String(pgid)], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  reaper.unref();
  reaper.stdin?.on("error", () => undefined); // a dismissed reaper's pipe is not ours to report
  (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return reaper;
}

/** Runs one clinic tool against the bundled server; resolves with where the HTML report is. */
export async function runClinic(options: ClinicOptions): Promise<ClinicOutcome> {
  const log = options.log ?? (() => {});
  const fixture = options.fixture
    ? userFixture(options.fixture)
    : ensureFixture(
        options.fixturesDir ?? join(ROOT, FIXTURE_DATA_DIR),
        options.projects ?? 1000,
        options.scriptBytes,
        options.events ?? 1000,
        1,
        (p) => log(`building fixture ${p}`),
      );
  const out = resolve(options.out);
  const clinicDir = join(out, "clinic");
  const dest = join(clinicDir, `${options.tool}-data`);
  mkdirSync(clinicDir, { recursive: true });
  // A private copy of the fixture: the server under test never touches the shared file.
  const work = mkdtempSync(join(tmpdir(), "catchup-clinic-"));
  const db = join(work, "fixture.sqlite");
  copyFileSync(fixture.path, db);

  const control = await controlServer();
  const require = createRequire(import.meta.url);
  const args = clinicArgs({
    clinicBin: require.resolve("clinic/bin.js"),
    tool: options.tool,
    dest,
    holdScript: HOLD_SCRIPT,
    controlPort: control.port,
    node: process.execPath,
    serverMain: SERVER_MAIN,
    db,
    delivery: options.variant,
  });
  log(`clinic ${options.tool}: starting the ${options.variant} server on ${fixture.path}`);
  // NO_INSIGHT: without it clinic asks an analytics question on stdin and, with no terminal, exits 0
  // having done nothing (DESIGN §6).
  // clinic, the server and the hold command run in a process group of their own: a terminal's
  // Ctrl-C reaches only us (we stop the drive and let clinic write its report), and the reaper can
  // end the whole group if we die — clinic otherwise goes on analysing for seconds after our death.
  const child = spawn(process.execPath, args, {
    // clinic's working files (bubbleprof's node_trace.*.log) go to the temp dir, removed at the end.
    cwd: work,
    env: { ...process.env, NO_INSIGHT: "true" },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const reaper = child.pid === undefined ? null : startReaper(child.pid);
  child.once("exit", () => reaper?.kill("SIGTERM"));
  let output = "";
  const listeners: LineListeners = new Set();
  const record = (line: string) => {
    output += `${line}\n`;
    if (output.length > 200_000) output = output.slice(-100_000); // keep the tail: errors and the report path
    for (const l of listeners) l(line);
  };
  if (child.stdout) lines(child.stdout, record);
  if (child.stderr) lines(child.stderr, record);
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const abandon = () => {
    child.stdin?.end(); // EOF: the server (--exit-with-parent) stops
    // The group, even if clinic itself has exited: whatever it left behind (server, hold command) goes too.
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };

  let stopRequested = false;
  const onSigint = () => {
    stopRequested = true;
  };
  process.on("SIGINT", onSigint);
  let sessions = 0;
  let okSessions = 0;
  let firstError: string | null = null;
  try {
    const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    const ready = await waitReady(child, listeners, readyTimeoutMs, () => output);
    // clinic runs the hold command once it has seen the server listen; until then it is not ready to stop it.
    const hold = await withTimeout(
      control.connection,
      readyTimeoutMs,
      "waiting for clinic to run its --on-port (hold) command",
    );
    reaper?.stdin?.write(`pid ${ready.pid}\n`); // the server too, should it ever leave the group
    log(
      `server ready at ${ready.url} (pid ${ready.pid}); driving ${options.case} x ${options.clients} for ${options.durationS} s`,
    );
    const after = afterSequenceFor(options.case, fixture.meta);
    const deadline = performance.now() + options.durationS * 1000;
    while (!stopRequested && performance.now() < deadline) {
      const { rows } = await runSessions({
        clients: options.clients,
        url: ready.url,
        token: DEV_TOKEN,
        subscribePayload: buildSubscribePayload(SUBSCRIBE_PAYLOAD, after),
        ackDelayMs: options.ackDelayMs,
        holdMs: 0,
        timeoutMs: 30_000,
      });
      for (const r of rows) {
        sessions++;
        if (r.ok) okSessions++;
        else firstError ??= r.error;
      }
      if (okSessions === 0 && sessions > 0) break; // the server serves nothing: stop early
    }
    log(`${okSessions}/${sessions} sessions ok; stopping the server so clinic writes its report`);
    // Closing the control socket ends the hold command; clinic then stops the server (SIGINT, or its
    // IPC stop for heapprofiler) and analyses.
    hold.destroy();
    if (!clinicStopsServer(options.tool)) {
      try {
        process.kill(ready.pid, "SIGINT");
      } catch {
        // already gone
      }
    }
    const reportTimeoutMs = options.reportTimeoutMs ?? 180_000;
    const timer = setTimeout(abandon, reportTimeoutMs);
    const [code, signal] = await exited;
    clearTimeout(timer);
    if (code !== 0) {
      throw new Error(
        `clinic ${options.tool} exited with ${signal ?? `code ${code}`}${signal === "SIGKILL" ? ` (no report within ${reportTimeoutMs} ms)` : ""}; output:\n${output.slice(-2000)}`,
      );
    }
    if (okSessions === 0) {
      throw new Error(`no session succeeded against the server under clinic (${firstError ?? "no session ran"})`);
    }
    const generated = parseHtmlPath(output) ?? newestHtml(dest);
    if (!generated || statSync(generated).size === 0) {
      throw new Error(`clinic ${options.tool} wrote no HTML report; output:\n${output.slice(-2000)}`);
    }
    const htmlPath = join(clinicDir, `${options.tool}.html`);
    const tmp = `${htmlPath}.${process.pid}.tmp`;
    copyFileSync(generated, tmp);
    renameSync(tmp, htmlPath);
    return { htmlPath, dataDir: dest, sessions, okSessions, firstError };
  } finally {
    process.off("SIGINT", onSigint);
    control.server.close();
    abandon();
    rmSync(work, { recursive: true, force: true });
  }
}
