// The RSS lane in a process of its own: a small Node child that reads /proc/PID/statm synchronously
// on a deadline schedule and sleeps between reads, so nothing in the harness can delay a reading:
// neither its main thread (a GC, the heap lane's inspector traffic, report work) nor its clients'
// thread. A worker thread of the harness was not enough: its wake-ups waited up to 55 ms behind the
// harness's own large allocations (parsing multi-MiB frames), where a process of its own, side by
// side on the same CPU, waited at most 7.6 ms (docs/sampler.md). Samples come back as JSON lines in
// batches; a stop request (a line on its stdin, or the end of stdin when the harness is gone) ends
// it. The process starts (and is made real-time) before it is given its target: a caller that samples
// one process after another keeps a spare ready.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { withTimeout } from "../util/timeout.js";
import { pageSize } from "./procfs.js";

// CommonJS source run with -e. Its statm parsing matches statmResidentBytes in procfs.ts (resident
// pages, the second field).
const LANE_SOURCE = `
const { openSync, readSync, closeSync } = require("node:fs");
const out = (o) => process.stdout.write(JSON.stringify(o) + "\\n");
let stopped = false;
let started = false;
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  input += d;
  for (let i; (i = input.indexOf("\\n")) >= 0; ) {
    const line = input.slice(0, i);
    input = input.slice(i + 1);
    if (line === "stop") stopped = true;
    else if (!started) {
      started = true;
      lane(JSON.parse(line)).then(() => process.exit(0));
    }
  }
});
// The harness is gone (or stopped it): a lane never given a target exits at once.
process.stdin.on("end", () => {
  stopped = true;
  if (!started) process.exit(0);
});
// First its id (the harness may make it real-time), then one line: the target.
out({ tid: process.pid });
async function lane({ pid, intervalMs, batchMs, page, hrOrigin }) {
  // t on the sampler's clock: performance.now() and hrtime both read CLOCK_MONOTONIC; the origin is
  // given as an hrtime, so this process's performance.now() is shifted onto the harness's axis.
  const shift = Number(process.hrtime.bigint() - BigInt(hrOrigin)) / 1e6 - performance.now();
  const now = () => performance.now() + shift;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const path = "/proc/" + pid + "/statm";
  const buf = Buffer.alloc(256);
  let t = [], rss = [], reads = [];
  let missed = 0;
  const post = (final, error, gone) => {
    out({ t, rss, reads, missed, upTo: now(), final, error, gone });
    t = [];
    rss = [];
    reads = [];
  };
  let fd;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    const gone = e.code === "ENOENT" || e.code === "ESRCH";
    return post(true, "cannot read " + path + ": " + (e.code || e.message), gone);
  }
  try {
    const start = now();
    let k = 0;
    let lastPost = Number.NEGATIVE_INFINITY;
    for (;;) {
      const before = now();
      let bytes = 0;
      let n = 0;
      try {
        n = readSync(fd, buf, 0, buf.length, 0);
      } catch (e) {
        const gone = e.code === "ESRCH" || e.code === "ENOENT";
        return post(true, "cannot read " + path + ": " + (e.code || e.message), gone);
      }
      // The second field, parsed from the bytes: no string or regex per reading.
      let i = 0;
      while (i < n && buf[i] !== 32) i++;
      let pages = 0;
      for (i++; i < n && buf[i] >= 48 && buf[i] <= 57; i++) pages = pages * 10 + buf[i] - 48;
      if (i < n && buf[i] === 32) bytes = pages * page;
      // A zombie's statm reads as zeros: nothing resident, the process has exited.
      if (bytes === 0) return post(true, "process " + pid + " is gone (" + path + " is empty)", true);
      const after = now();
      t.push(before);
      rss.push(bytes);
      reads.push(after - before);
      // The first reading goes at once: it tells the harness the lane runs.
      if (after - lastPost >= batchMs) {
        post(false, null, false);
        lastPost = after;
      }
      // Deadline schedule: slot k is due at start + k*interval; a late reading skips the slots it
      // missed (counted) instead of shifting the ones after it.
      const nextK = Math.max(k + 1, Math.ceil((after - start) / intervalMs));
      missed += nextK - (k + 1);
      k = nextK;
      const due = start + k * intervalMs;
      // Sleep on the event loop (so a stop line is heard) until about 1 ms before the slot, then
      // the rest in Atomics.wait, which wakes to the microsecond.
      const coarse = Math.floor(due - now() - 1);
      if (coarse >= 1) await new Promise((r) => setTimeout(r, coarse));
      if (stopped) return post(true, null, false);
      const left = due - now();
      if (left > 0) Atomics.wait(sleeper, 0, 0, left);
    }
  } finally {
    closeSync(fd);
  }
}
`;

/** Samples of the RSS lane as its process sends them: parallel arrays, in time order. */
export interface RssBatch {
  /** When each reading started (ms from the sampler's origin). */
  t: number[];
  /** Resident bytes of each reading. */
  rss: number[];
  /** How long each /proc read took (ms). */
  reads: number[];
  /** Slots skipped so far because a reading came late (cumulative). */
  missed: number;
  /** Every reading started before this t is in this batch or an earlier one. */
  upTo: number;
  /** The lane's last batch: it stopped (error null) or could not read any more (error set). */
  final: boolean;
  error: string | null;
  /** The error means the process is gone (its statm is missing or empty). */
  gone: boolean;
}

export interface RssLaneOptions {
  pid: number;
  intervalMs: number;
  /** performance.now() value that is t = 0. */
  origin: number;
  /** Called on the main thread for every batch, the final one included (exactly once with final set). */
  onBatch: (batch: RssBatch) => void;
  /** The lane sends what it has at least this often (ms). Default 50. */
  batchMs?: number;
  /** How long to wait for the first reading (ms). Default 10,000. */
  startTimeoutMs?: number;
  /**
   * Ask for real-time scheduling (SCHED_FIFO, priority 1, through `chrt`) for the lane's process (its
   * main thread), so a wake-up is not queued behind other runnable threads on a busy machine. It sleeps between
   * microsecond reads, so it takes almost nothing from anyone. Without the permission (CAP_SYS_NICE) or
   * `chrt`, the lane runs as before. Default true.
   */
  realtime?: boolean;
  /**
   * Start the next lane's process once this lane stops, so this process's next startRssLane (same
   * realtime setting) takes it ready instead of waiting for a Node start (and `chrt`): for callers
   * that sample one process after another. Not while this lane runs: starting it beside the lane
   * delayed readings by up to 8 ms. The spare idles without holding the harness open. Default false.
   */
  spare?: boolean;
}

const CHRT_TIMEOUT_MS = 5_000;

/** Makes thread tid SCHED_FIFO priority 1 through `chrt`; resolves true when that worked. Never rejects. */
export function makeRealtime(tid: number): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      execFile("chrt", ["-f", "-p", "1", String(tid)], { timeout: CHRT_TIMEOUT_MS }, (err) => resolve(!err));
    } catch {
      resolve(false);
    }
  });
}

/** How the lane's thread is scheduled: "fifo" (real-time, SCHED_FIFO priority 1) or "normal". */
export type RssLaneScheduling = "fifo" | "normal";

export interface RssLane {
  /** The pid of the lane's process (its main thread's id), or null if unknown. */
  readonly tid: number | null;
  /** "fifo" once the lane runs real-time; "normal" when that was not asked, not permitted or not possible. */
  readonly scheduling: RssLaneScheduling;
  /** Stops the lane: tells its process, receives its final batch, and resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

export class RssLaneError extends Error {
  override readonly name = "RssLaneError";
}

const STOP_TIMEOUT_MS = 5_000;

/** A lane's process, started and real-time when asked and permitted, waiting for its target. */
interface LaneThread {
  proc: ChildProcess;
  /** Its JSON lines, one per message. */
  lines: ReturnType<typeof createInterface>;
  tid: number | null;
  scheduling: RssLaneScheduling;
  realtime: boolean;
  /** Removes the start's listeners: from here the lane's own handle the process's lines and exit. */
  own(): LaneThread;
}

const alive = (proc: ChildProcess) => proc.exitCode === null && proc.signalCode === null;

/** Starts a lane process; resolves once it said its id (and `chrt` ran, when asked). */
function startLaneThread(realtime: boolean, timeoutMs: number): Promise<LaneThread> {
  // Not the harness's NODE_OPTIONS (an --inspect or a loader would load into the lane).
  const { NODE_OPTIONS: _, ...env } = process.env;
  const proc = spawn(process.execPath, ["-e", LANE_SOURCE], { stdio: ["pipe", "pipe", "ignore"], env });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  // A stop told to a lane that already ended (EPIPE) is no error: its exit says everything.
  proc.stdin?.on("error", () => undefined);
  return new Promise<LaneThread>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      proc.kill("SIGKILL");
      reject(new RssLaneError(why));
    };
    const timer = setTimeout(() => fail(`the RSS lane process did not start within ${timeoutMs} ms`), timeoutMs);
    const onError = (e: Error) => fail(`the RSS lane process failed: ${e.message}`);
    const onExit = (code: number | null) => fail(`the RSS lane process exited (code ${code})`);
    const ready = (tid: number | null, scheduling: RssLaneScheduling) => {
      const thread: LaneThread = {
        proc,
        lines,
        tid,
        scheduling,
        realtime,
        own() {
          proc.off("error", onError).off("exit", onExit);
          return thread;
        },
      };
      resolve(thread);
    };
    lines.once("line", (line) => {
      clearTimeout(timer);
      const tid = (JSON.parse(line) as { tid: number | null }).tid;
      if (!realtime || tid === null) return ready(tid, "normal");
      void makeRealtime(tid).then((ok) => ready(tid, ok ? "fifo" : "normal"));
    });
    proc.on("error", onError).on("exit", onExit);
    unrefLane(proc);
  });
}

/** A lane process and its pipes never hold the harness open (a lane nobody stopped ends when stdin does). */
function unrefLane(proc: ChildProcess): void {
  proc.unref();
  for (const stream of [proc.stdin, proc.stdout] as unknown as ({ unref?: () => void } | null)[]) stream?.unref?.();
}

/** The spare process the last `spare: true` lane started, if any. */
let spare: Promise<LaneThread | null> | null = null;

/** A ready process: the spare when it suits (and is alive), else a new one. */
async function laneThread(realtime: boolean, timeoutMs: number): Promise<LaneThread> {
  const kept = spare;
  spare = null;
  const thread = kept ? await kept : null;
  if (thread?.realtime === realtime && alive(thread.proc)) return thread.own();
  if (thread) thread.proc.kill("SIGKILL");
  return (await startLaneThread(realtime, timeoutMs)).own();
}

/**
 * Starts the RSS lane of pid in its own process. Resolves once its first reading arrived (that batch
 * has gone to onBatch already); rejects if the first reading fails or does not come in time.
 */
export async function startRssLane(options: RssLaneOptions): Promise<RssLane> {
  const { pid, intervalMs, onBatch } = options;
  const batchMs = options.batchMs ?? 50;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const realtime = options.realtime ?? true;
  const thread = await laneThread(realtime, startTimeoutMs);
  const makeSpare = options.spare
    ? () => {
        spare ??= startLaneThread(realtime, startTimeoutMs).catch(() => null);
      }
    : () => undefined;
  const hrOrigin = process.hrtime.bigint() - BigInt(Math.round((performance.now() - options.origin) * 1e6));
  const lane = laneOn(thread, { onBatch, startTimeoutMs });
  thread.proc.stdin?.write(
    `${JSON.stringify({ pid, intervalMs, batchMs, page: pageSize(), hrOrigin: String(hrOrigin) })}\n`,
  );
  const running = await lane;
  return {
    tid: running.tid,
    scheduling: running.scheduling,
    stop: () => running.stop().finally(makeSpare),
  };
}

/** The lane of a process given its target: batches to onBatch until it stops. */
function laneOn(
  thread: LaneThread,
  { onBatch, startTimeoutMs }: { onBatch: (batch: RssBatch) => void; startTimeoutMs: number },
): Promise<RssLane> {
  const { proc, lines, tid, scheduling } = thread;
  let stopping: Promise<void> | null = null;
  let ended = false;
  let started = false;
  // "close": it exited and its pipes are drained, so its final line has been read.
  const exited = new Promise<void>((resolve) => {
    if (proc.stdout?.closed) resolve();
    else proc.once("close", () => resolve());
  });
  const tell = (line: string) => {
    if (proc.stdin?.writable) proc.stdin.write(line, () => undefined);
  };

  return new Promise<RssLane>((resolve, reject) => {
    const startTimer = setTimeout(() => {
      endWith(`the RSS lane process gave no reading within ${startTimeoutMs} ms`, false);
    }, startTimeoutMs);

    /** Delivers the one final batch (synthesised when the process failed without sending one). */
    const endWith = (error: string | null, gone: boolean, batch?: RssBatch) => {
      if (ended) return;
      ended = true;
      clearTimeout(startTimer);
      tell("stop\n");
      proc.stdin?.end();
      const final: RssBatch = batch ?? { t: [], rss: [], reads: [], missed: 0, upTo: -1, final: true, error, gone };
      if (!started) {
        proc.kill("SIGKILL");
        reject(new RssLaneError(error ?? "the RSS lane stopped before it started"));
        return;
      }
      onBatch({ ...final, final: true });
    };

    lines.on("line", (line) => {
      if (ended) return;
      let m: RssBatch;
      try {
        m = JSON.parse(line) as RssBatch;
      } catch {
        return endWith(`the RSS lane process wrote ${JSON.stringify(line.slice(0, 80))}`, false);
      }
      if (m.final) return endWith(m.error, m.gone, m);
      onBatch(m);
      if (!started) {
        started = true;
        clearTimeout(startTimer);
        resolve(lane);
      }
    });
    proc.on("error", (e) => endWith(`the RSS lane process failed: ${e.message}`, false));
    // Its last lines are read before "close" (pipes drained): after a stop this only ends a lane
    // whose process died without a final batch.
    proc.on("close", (code) => endWith(stopping ? null : `the RSS lane process exited (code ${code})`, false));

    const lane: RssLane = {
      get tid() {
        return tid;
      },
      get scheduling() {
        return scheduling;
      },
      stop() {
        stopping ??= (async () => {
          tell("stop\n");
          // The lane answers with its final batch and exits; a wedged one is killed.
          await withTimeout(exited, STOP_TIMEOUT_MS, "the RSS lane process's exit").catch(() => proc.kill("SIGKILL"));
          await exited;
          endWith(null, false);
        })();
        return stopping;
      },
    };
  });
}
