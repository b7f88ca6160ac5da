// Runs the bundled server under clinic.js (an inspection aid, not the measurement): start
// `clinic <tool> -- node dist/server-under-test/main.js ...`, wait for the server's ready line, drive
// a latency case with the Node driver for a while, stop the server with SIGINT so clinic writes its
// HTML, and leave that at <out>/clinic/<tool>.html.
import { once } from "node:events";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDeadOwners } from "../../common/atomic-file.js";
import { fixtureCacheDir } from "../../fixtures/options.js";
import {
  DEFAULT_SESSION_TIMEOUT_MS,
  DEV_TOKEN,
  SUBSCRIBE_TAG,
  SUBSCRIBE_TEMPLATE,
  THREAD_SUBSCRIBE_TAG,
  THREAD_SUBSCRIBE_TEMPLATE,
} from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload, withThreadId } from "../../scenarios/lib/session.js";
import { ensureFixture, userFixture } from "../bench/fixtures/fixtures.js";
import { afterSequenceFor, isThreadCase } from "../bench/rounds/plan.js";
import { runSessions } from "../driver/node.js";
import type { LatencyCase } from "../results/schema.js";
import { bundledServerArgs, bundledServerArgv } from "../server-process/bundled.js";
import { spawnProcess } from "../server-process/process.js";
import { parseReadyLine, type ReadyLine } from "../server-process/ready.js";
import { waitReady } from "../server-process/wait.js";
import { withTimeout } from "../util/timeout.js";
import { type ClinicTool, clinicArgs, clinicStopsServer, parseHtmlPath } from "./tools.js";

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

export interface ClinicOptions {
  /** The clinic CLI (resolve.ts resolveClinicBin): the user's own copy. */
  clinicBin: string;
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

/** The fixture to serve: the user's own, else the default one for the options (built when missing). */
function clinicFixture(options: ClinicOptions, log: (line: string) => void) {
  return options.fixture
    ? userFixture(options.fixture)
    : ensureFixture(
        options.fixturesDir ?? fixtureCacheDir(),
        options.projects ?? 1000,
        options.scriptBytes,
        options.events ?? 1000,
        1,
        (p) => log(`building fixture ${p}`),
      );
}

/**
 * A private copy of the fixture: the server under test never touches the shared file. Its folder
 * is named after our pid, so the next run removes the copy a killed run (SIGKILL) left behind.
 */
function privateFixtureCopy(fixturePath: string): { work: string; db: string } {
  removeDeadOwners(tmpdir(), /^catchup-clinic-(\d+)-/);
  const work = mkdtempSync(join(tmpdir(), `catchup-clinic-${process.pid}-`));
  const db = join(work, "fixture.sqlite");
  copyFileSync(fixturePath, db);
  return { work, db };
}

/** Starts `clinic <tool> -- node <server>` with the hold command on the control port. */
function spawnClinic(options: ClinicOptions, paths: { dest: string; work: string; db: string }, controlPort: number) {
  const args = clinicArgs({
    clinicBin: options.clinicBin,
    tool: options.tool,
    dest: paths.dest,
    holdScript: HOLD_SCRIPT,
    controlPort,
    node: process.execPath,
    server: bundledServerArgv(bundledServerArgs(paths.db, ["--delivery", options.variant])),
  });
  // NO_INSIGHT: without it clinic asks an analytics question on stdin and, with no terminal, exits 0
  // having done nothing.
  // clinic, the server and the hold command run in a process group of their own: a terminal's
  // Ctrl-C reaches only us (we stop the drive and let clinic write its report), and the reaper can
  // end the whole group if we die — clinic otherwise goes on analysing for seconds after our death.
  return spawnProcess({
    argv: [process.execPath, ...args],
    // clinic's working files (bubbleprof's node_trace.*.log) go to the temp dir, removed at the end.
    cwd: paths.work,
    env: { ...process.env, NO_INSIGHT: "true" },
    // The reaper's grace: clinic analyses for seconds after its server stops; if we die, it goes fast.
    graceMs: 1000,
  });
}

type ClinicChild = ReturnType<typeof spawnProcess>;

/** Waits for the server's ready line, then for clinic's hold command on the control socket. */
async function waitClinicReady(
  child: ClinicChild,
  connection: Promise<Socket>,
  readyTimeoutMs: number,
): Promise<{ ready: ReadyLine; hold: Socket }> {
  let ready: ReadyLine;
  try {
    const r = await waitReady(child, { line: (line) => parseReadyLine(line), timeoutMs: readyTimeoutMs });
    ready = (r as { line: ReadyLine }).line;
  } catch (e) {
    throw new Error(`the server under clinic ${(e as Error).message}; output:\n${child.outputTail()}`);
  }
  // clinic runs the hold command once it has seen the server listen; until then it is not ready to stop it.
  const hold = await withTimeout(connection, readyTimeoutMs, "waiting for clinic to run its --on-port (hold) command");
  child.adopt(ready.pid); // the server too, should it ever leave the group
  return { ready, hold };
}

interface SessionTally {
  sessions: number;
  okSessions: number;
  firstError: string | null;
}

/** Drives the latency case in rounds until the duration ends, a stop is asked for, or nothing succeeds. */
async function driveClinicLoad(
  options: ClinicOptions,
  url: string,
  meta: ReturnType<typeof clinicFixture>["meta"],
  stopRequested: () => boolean,
): Promise<SessionTally> {
  const tally: SessionTally = { sessions: 0, okSessions: 0, firstError: null };
  const after = afterSequenceFor(options.case, meta);
  const thread = isThreadCase(options.case);
  const template = thread ? withThreadId(THREAD_SUBSCRIBE_TEMPLATE, meta.threadId) : SUBSCRIBE_TEMPLATE;
  const deadline = performance.now() + options.durationS * 1000;
  while (!stopRequested() && performance.now() < deadline) {
    const { rows } = await runSessions({
      clients: options.clients,
      url,
      token: DEV_TOKEN,
      subscribeTag: thread ? THREAD_SUBSCRIBE_TAG : SUBSCRIBE_TAG,
      subscribePayload: buildSubscribePayload(template, after),
      ackDelayMs: options.ackDelayMs,
      holdMs: 0,
      timeoutMs: DEFAULT_SESSION_TIMEOUT_MS,
    });
    for (const r of rows) {
      tally.sessions++;
      if (r.ok) tally.okSessions++;
      else tally.firstError ??= r.error;
    }
    if (tally.okSessions === 0 && tally.sessions > 0) break; // the server serves nothing: stop early
  }
  return tally;
}

/** Stops the server so clinic analyses, waits for clinic to exit (or gives up on it), and returns its output. */
async function stopForReport(options: ClinicOptions, child: ClinicChild, hold: Socket, serverPid: number) {
  // Closing the control socket ends the hold command; clinic then stops the server (SIGINT, or its
  // IPC stop for heapprofiler) and analyses.
  hold.destroy();
  if (!clinicStopsServer(options.tool)) {
    try {
      process.kill(serverPid, "SIGINT");
    } catch {
      // already gone
    }
  }
  const reportTimeoutMs = options.reportTimeoutMs ?? 180_000;
  // Gives up on clinic: SIGKILL to whatever is left of its group (the server, the hold command, clinic).
  const timer = setTimeout(() => child.kill(), reportTimeoutMs);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  const output = child.outputTail(200_000);
  if (code !== 0) {
    throw new Error(
      `clinic ${options.tool} exited with ${signal ?? `code ${code}`}${signal === "SIGKILL" ? ` (no report within ${reportTimeoutMs} ms)` : ""}; output:\n${output.slice(-2000)}`,
    );
  }
  return output;
}

/** Copies the HTML clinic generated to <clinicDir>/<tool>.html (temp file, then rename). */
function keepHtmlReport(options: ClinicOptions, output: string, dest: string, clinicDir: string): string {
  const generated = parseHtmlPath(output) ?? newestHtml(dest);
  if (!generated || statSync(generated).size === 0) {
    throw new Error(`clinic ${options.tool} wrote no HTML report; output:\n${output.slice(-2000)}`);
  }
  const htmlPath = join(clinicDir, `${options.tool}.html`);
  const tmp = `${htmlPath}.${process.pid}.tmp`;
  copyFileSync(generated, tmp);
  renameSync(tmp, htmlPath);
  return htmlPath;
}

/** Runs one clinic tool against the bundled server; resolves with where the HTML report is. */
export async function runClinic(options: ClinicOptions): Promise<ClinicOutcome> {
  const log = options.log ?? (() => {});
  const fixture = clinicFixture(options, log);
  const out = resolve(options.out);
  const clinicDir = join(out, "clinic");
  const dest = join(clinicDir, `${options.tool}-data`);
  mkdirSync(clinicDir, { recursive: true });
  const { work, db } = privateFixtureCopy(fixture.path);

  const control = await controlServer();
  log(`clinic ${options.tool}: starting the ${options.variant} server on ${fixture.path}`);
  const child = spawnClinic(options, { dest, work, db }, control.port);

  let stopRequested = false;
  const onSigint = () => {
    stopRequested = true;
  };
  process.on("SIGINT", onSigint);
  try {
    const { ready, hold } = await waitClinicReady(child, control.connection, options.readyTimeoutMs ?? 30_000);
    log(
      `server ready at ${ready.url} (pid ${ready.pid}); driving ${options.case} x ${options.clients} for ${options.durationS} s`,
    );
    const { sessions, okSessions, firstError } = await driveClinicLoad(
      options,
      ready.url,
      fixture.meta,
      () => stopRequested,
    );
    log(`${okSessions}/${sessions} sessions ok; stopping the server so clinic writes its report`);
    const output = await stopForReport(options, child, hold, ready.pid);
    if (okSessions === 0) {
      throw new Error(`no session succeeded against the server under clinic (${firstError ?? "no session ran"})`);
    }
    const htmlPath = keepHtmlReport(options, output, dest, clinicDir);
    return { htmlPath, dataDir: dest, sessions, okSessions, firstError };
  } finally {
    process.off("SIGINT", onSigint);
    control.server.close();
    child.child.stdin?.end(); // EOF: the server (--exit-with-parent) stops
    await child.stop(0); // whatever clinic left behind (it has exited, or we are giving up on it)
    rmSync(work, { recursive: true, force: true });
  }
}
