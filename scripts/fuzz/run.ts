// The fuzz run: start the bundled server (compiled, inspector on loopback) on a small temp fixture,
// keep a healthy client running, warm up, take a post-GC heap baseline, fuzz for N seconds with C
// frame lanes plus raw-socket faults, drop every fuzz connection, take the post-GC heap again, and
// judge the run (fuzz-verdict.ts).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { randomFloats } from "../../common/prng.js";
import { generateFixture } from "../../fixtures/generate.js";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { connectInspector, type InspectorClient } from "../sampler/inspector.js";
import { isAlive } from "../sampler/procfs.js";
import { postGcHeap } from "../sampler/sampler.js";
import { signalExitCode } from "../util/exit-codes.js";
import { onStopSignals } from "../util/stop-signals.js";
import { emptyTally, runLane } from "./connection.js";
import { connectionSeed, FrameFuzzer } from "./frames.js";
import { type Check, FD_SLACK, type FuzzFigures, HEAP_TOLERANCE, judgeFuzz } from "./fuzz-verdict.js";
import { emptyHalfOpenTally, openHalfOpen } from "./half-open.js";
import { emptyHealthyReport, startHealthyClient } from "./healthy.js";
import { startTarget } from "./server.js";

export interface FuzzOptions {
  seconds: number;
  seed: number;
  connections: number;
  /**
   * Keep fuzzing past `seconds` until this many frames were sent (a slow, loaded machine still
   * reaches the count), but never past 4 x seconds; falling short fails the run. Default 0.
   */
  minFrames?: number;
  /** Use this fixture instead of building a small one in a temp dir. */
  fixture?: string;
  /** Called with progress lines (phase changes). */
  log?: (line: string) => void;
  /**
   * Handle SIGINT/SIGTERM (the CLI does): say so, stop the server, remove the temp folder, exit
   * 130/143. A second signal exits at once (the temp folder is still removed).
   */
  handleSignals?: boolean;
}

/** Temp folders are named after the fuzzing process, so a later run can sweep those of dead ones. */
const WORK_PREFIX = "catchup-fuzz-";

/** Removes the temp folders of fuzz runs whose process is gone (killed before it could clean up). */
export function sweepStaleFuzzDirs(dir = tmpdir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^catchup-fuzz-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid || isAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(join(dir, name));
  }
  return removed;
}

export interface FuzzResult {
  figures: FuzzFigures;
  pass: boolean;
  checks: Check[];
}

/** Fuzz connections use these tokens in turn: full scope, and read-only (commands must be refused). */
const FULL_TOKEN = DEV_TOKEN;
const READ_TOKEN = "fuzz-read-only";
/** At most this many raw half-open sockets are held at once; the oldest is dropped for a new one. */
const MAX_HELD = 16;

/** Open file descriptors of a process (sockets included), from /proc. */
function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Runs fuzz lanes and raw-socket faults for `ms`; returns when all lanes stopped and held sockets are gone. */
async function fuzzPhase(
  url: string,
  options: FuzzOptions,
  phase: number,
  ms: number,
  figures: FuzzFigures,
): Promise<void> {
  const tally = emptyTally();
  const halfOpen = emptyHalfOpenTally();
  const start = performance.now();
  const minFrames = phase === 0 ? 0 : (options.minFrames ?? 0);
  const shouldStop = () => {
    const elapsed = performance.now() - start;
    return elapsed >= ms && (tally.framesSent >= minFrames || elapsed >= 4 * ms);
  };
  const lanes = Array.from({ length: options.connections }, (_, i) =>
    runLane(
      new FrameFuzzer(connectionSeed(options.seed + phase * 0x10000, i)),
      { url, token: i % 2 === 0 ? FULL_TOKEN : READ_TOKEN },
      tally,
      shouldStop,
    ),
  );
  const held: Socket[] = [];
  const rawRng = randomFloats(connectionSeed(options.seed + phase * 0x10000, 1_000_000));
  const rawLane = (async () => {
    while (!shouldStop()) {
      const socket = await openHalfOpen(rawRng, url, FULL_TOKEN, halfOpen);
      if (socket) held.push(socket);
      if (held.length > MAX_HELD) held.shift()?.destroy();
      // A new raw fault every ~50 ms keeps them a small share of the traffic.
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  await Promise.all([...lanes, rawLane]);
  for (const s of held) s.destroy();
  if (phase === 0) return; // warm-up figures are not reported
  figures.framesSent += tally.framesSent;
  figures.bytesSent += tally.bytesSent;
  figures.actions += tally.actions;
  figures.connectionsOpened += tally.connectionsOpened;
  figures.openFailures.push(...tally.openFailures);
  for (const [kind, byOutcome] of Object.entries(tally.outcomes)) {
    const into = figures.outcomes[kind] ?? {};
    figures.outcomes[kind] = into;
    for (const [o, n] of Object.entries(byOutcome)) into[o] = (into[o] ?? 0) + n;
  }
  for (const [k, n] of Object.entries(halfOpen.opened)) figures.halfOpen[k] = (figures.halfOpen[k] ?? 0) + n;
  figures.halfOpenClosedByServer += halfOpen.closedByServer;
  figures.halfOpenErrors.push(...halfOpen.errors);
}

/** The figures before anything ran: counts at zero, no heap or descriptor figures yet. */
function emptyFigures(options: FuzzOptions): FuzzFigures {
  return {
    seed: options.seed,
    seconds: options.seconds,
    connections: options.connections,
    minFrames: options.minFrames ?? 0,
    framesSent: 0,
    bytesSent: 0,
    actions: 0,
    connectionsOpened: 0,
    openFailures: [],
    outcomes: {},
    halfOpen: {},
    halfOpenClosedByServer: 0,
    halfOpenErrors: [],
    healthy: emptyHealthyReport(),
    heap: null,
    fds: null,
    heapError: null,
    serverExit: null,
    suspiciousStderr: [],
    stderrLines: 0,
    durationMs: 0,
  };
}

/** What a stop signal must end: the server and its inspector, once they exist. */
interface Live {
  target: Awaited<ReturnType<typeof startTarget>> | null;
  inspector: InspectorClient | null;
}

/** SIGINT/SIGTERM: stop the server, remove the temp folder, exit 130/143; a second signal exits at once. */
function stopOnSignal(live: Live, tmp: string, log: (line: string) => void) {
  let stopping = false;
  return (signal: "SIGINT" | "SIGTERM") => {
    const code = signalExitCode(signal);
    if (stopping) {
      rmSync(tmp, { recursive: true, force: true });
      process.exit(code);
    }
    stopping = true;
    log(`${signal}: stopping the server and removing ${tmp}`);
    void (async () => {
      await live.inspector?.close().catch(() => undefined);
      await live.target?.stop(1000).catch(() => undefined);
      rmSync(tmp, { recursive: true, force: true });
      process.exit(code);
    })();
  };
}

/** The fixture to serve: the user's, else a small but real one built in tmp. */
function fuzzFixture(options: FuzzOptions, tmp: string): string {
  if (options.fixture !== undefined) return options.fixture;
  const db = join(tmp, "fuzz.sqlite");
  // Small but real: 100 projects with 1-2 KiB scripts, enough post-cursor events for replay chunks.
  generateFixture({
    projects: 100,
    scriptBytesMin: 1024,
    scriptBytesMax: 2048,
    scriptsPerProject: 1,
    events: 600,
    seed: options.seed >>> 0,
    out: db,
  });
  return db;
}

/** The server frees a closed connection's state asynchronously: measure again (bounded) until it is back. */
async function settledAfter(inspector: InspectorClient, pid: number, baselineBytes: number, baselineFds: number) {
  let afterBytes = await postGcHeap(inspector);
  let afterFds = openFds(pid);
  let attempts = 1;
  const settled = () => afterBytes <= baselineBytes * (1 + HEAP_TOLERANCE) && afterFds <= baselineFds + FD_SLACK;
  while (!settled() && attempts < 6) {
    await new Promise((r) => setTimeout(r, 500));
    afterBytes = await postGcHeap(inspector);
    afterFds = openFds(pid);
    attempts++;
  }
  return { afterBytes, afterFds, attempts };
}

/** Server, healthy client, warm-up, baseline, the fuzz itself, the heap and descriptors after. */
async function fuzzSession(
  options: FuzzOptions,
  db: string,
  live: Live,
  figures: FuzzFigures,
  log: (l: string) => void,
) {
  const target = await startTarget({
    db,
    args: ["--token", FULL_TOKEN, "--token", `${READ_TOKEN}:orchestration:read`],
  });
  live.target = target;
  log(`server pid ${target.pid} at ${target.url}`);
  const inspector = await connectInspector(target.inspectorUrl, { timeoutMs: 10_000 });
  live.inspector = inspector;
  const healthy = startHealthyClient({ url: target.url, token: FULL_TOKEN });
  try {
    await healthy.ready;
  } catch (e) {
    figures.healthy = await healthy.stop();
    figures.healthy.errors.push((e as Error).message);
    throw e;
  }
  // Warm-up: the same traffic, not counted, so lazily compiled code and caches exist before the baseline.
  const warmupMs = Math.min(3_000, Math.max(1_000, options.seconds * 100));
  log(`warm-up ${warmupMs} ms`);
  await fuzzPhase(target.url, options, 0, warmupMs, figures);
  const baselineBytes = await postGcHeap(inspector);
  const baselineFds = openFds(target.pid);
  log(`baseline heap ${baselineBytes} bytes, ${baselineFds} open fds; fuzzing ${options.seconds} s`);
  await fuzzPhase(target.url, options, 1, options.seconds * 1000, figures);
  const { afterBytes, afterFds, attempts } = await settledAfter(inspector, target.pid, baselineBytes, baselineFds);
  figures.heap = { baselineBytes, afterBytes, attempts };
  figures.fds = { baseline: baselineFds, after: afterFds };
  figures.healthy = await healthy.stop();
}

/** Runs the whole fuzz session. Rejects only if the server cannot be started; failures are in the verdict. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  sweepStaleFuzzDirs();
  const tmp = mkdtempSync(join(tmpdir(), `${WORK_PREFIX}${process.pid}-`));
  const figures = emptyFigures(options);
  const live: Live = { target: null, inspector: null };
  const offSignals = options.handleSignals ? onStopSignals(stopOnSignal(live, tmp, log)) : () => undefined;
  try {
    await fuzzSession(options, fuzzFixture(options, tmp), live, figures, log);
  } catch (e) {
    figures.heapError ??= (e as Error).message;
    if (!live.target) throw e;
  } finally {
    const { target, inspector } = live;
    figures.serverExit = target?.exit() ?? null;
    figures.suspiciousStderr = target?.suspicious() ?? [];
    figures.stderrLines = target?.stderrLineCount() ?? 0;
    await inspector?.close().catch(() => {});
    await target?.stop();
    rmSync(tmp, { recursive: true, force: true });
    offSignals();
    figures.durationMs = performance.now() - started;
  }
  const verdict = judgeFuzz(figures);
  return { figures, ...verdict };
}
