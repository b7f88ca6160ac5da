// The RSS lane on a thread of its own: a worker that reads /proc/PID/statm synchronously on a
// deadline schedule and sleeps between reads in Atomics.wait, so nothing on the harness's main
// thread (a GC, the heap lane's inspector traffic, report work, a client parsing frames) can delay a
// reading. Samples go back to the main thread in batches; a stop request wakes the sleeping worker
// at once through the same shared word it waits on. The thread starts (and is made real-time) before
// it is given its target: a caller that samples one process after another keeps a spare thread ready.
import { execFile } from "node:child_process";
import { Worker } from "node:worker_threads";
import { withTimeout } from "../util/timeout.js";
import { pageSize } from "./procfs.js";

// CommonJS source run with eval: the same code from compiled dist/ and from TypeScript under vitest.
// Its statm parsing matches statmResidentBytes in procfs.ts (resident pages, the second field).
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { openSync, readSync, closeSync, readlinkSync } = require("node:fs");
let tid = null;
try {
  tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
} catch {}
// First the thread's id (the main thread may make it real-time), then one message: the target.
parentPort.postMessage({ tid });
parentPort.once("message", (target) => lane(target));
function lane({ pid, intervalMs, batchMs, page, control: shared, hrOrigin }) {
  const control = new Int32Array(shared);
  // t on the sampler's clock: performance.now() and hrtime both read CLOCK_MONOTONIC; the origin is
  // given as an hrtime, so this thread's performance.now() is shifted onto the main thread's axis.
  const shift = Number(process.hrtime.bigint() - hrOrigin) / 1e6 - performance.now();
  const now = () => performance.now() + shift;
  const path = "/proc/" + pid + "/statm";
  const buf = Buffer.alloc(256);
  let t = [], rss = [], reads = [];
  let missed = 0;
  const post = (final, error, gone) => {
    parentPort.postMessage({ t, rss, reads, missed, upTo: now(), final, error, gone });
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
      // The first reading goes at once: it tells the main thread the lane runs.
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
      for (;;) {
        if (Atomics.load(control, 0) !== 0) return post(true, null, false);
        const left = due - now();
        if (left <= 0) break;
        Atomics.wait(control, 0, 0, left);
      }
    }
  } finally {
    closeSync(fd);
  }
}
`;

/** Samples of the RSS lane as the worker sends them: parallel arrays, in time order. */
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
  /** The worker sends what it has at least this often (ms). Default 50. */
  batchMs?: number;
  /** How long to wait for the first reading (ms). Default 10,000. */
  startTimeoutMs?: number;
  /**
   * Ask for real-time scheduling (SCHED_FIFO, priority 1, through `chrt`) for the lane's thread, so a
   * wake-up is not queued behind other runnable threads on a busy machine. The thread sleeps between
   * microsecond reads, so it takes almost nothing from anyone. Without the permission (CAP_SYS_NICE) or
   * `chrt`, the lane runs as before. Default true.
   */
  realtime?: boolean;
  /**
   * Start the next lane's thread now, so this process's next startRssLane (same realtime setting)
   * takes it ready instead of waiting for a thread (and `chrt`): for callers that sample one process
   * after another. The spare idles without holding the process open. Default false.
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
  /** The kernel thread id of the lane's worker (from /proc/thread-self), or null if unreadable. */
  readonly tid: number | null;
  /** "fifo" once the thread runs real-time; "normal" when that was not asked, not permitted or not possible. */
  readonly scheduling: RssLaneScheduling;
  /** Stops the lane: wakes the worker, receives its final batch, and resolves once the thread has exited. Idempotent. */
  stop(): Promise<void>;
}

export class RssLaneError extends Error {
  override readonly name = "RssLaneError";
}

const STOP_TIMEOUT_MS = 5_000;

/** A lane's thread, started and real-time when asked and permitted, waiting for its target. */
interface LaneThread {
  worker: Worker;
  tid: number | null;
  scheduling: RssLaneScheduling;
  realtime: boolean;
  /** Removes the start's listeners: from here the lane's own handle the thread's errors and exit. */
  own(): LaneThread;
}

/** Starts a lane thread; resolves once it said its id (and `chrt` ran, when asked). */
function startLaneThread(realtime: boolean, timeoutMs: number): Promise<LaneThread> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Not the parent's flags: e.g. --input-type=module would make this CommonJS source fail.
    execArgv: [],
    stdout: false,
    stderr: false,
  });
  return new Promise<LaneThread>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void worker.terminate();
      reject(new RssLaneError(why));
    };
    const timer = setTimeout(() => fail(`the RSS lane thread did not start within ${timeoutMs} ms`), timeoutMs);
    const onError = (e: Error) => fail(`the RSS lane thread failed: ${e.message}`);
    const onExit = (code: number) => fail(`the RSS lane thread exited (code ${code})`);
    const ready = (tid: number | null, scheduling: RssLaneScheduling) => {
      const thread: LaneThread = {
        worker,
        tid,
        scheduling,
        realtime,
        own() {
          worker.off("error", onError).off("exit", onExit);
          return thread;
        },
      };
      resolve(thread);
    };
    worker.once("message", ({ tid }: { tid: number | null }) => {
      clearTimeout(timer);
      if (!realtime || tid === null) return ready(tid, "normal");
      void makeRealtime(tid).then((ok) => ready(tid, ok ? "fifo" : "normal"));
    });
    worker.on("error", onError).on("exit", onExit);
    worker.unref();
  });
}

/** The spare thread the last `spare: true` lane started, if any. */
let spare: Promise<LaneThread | null> | null = null;

/** A ready thread: the spare when it suits (and is alive), else a new one. */
async function laneThread(realtime: boolean, timeoutMs: number): Promise<LaneThread> {
  const kept = spare;
  spare = null;
  const thread = kept ? await kept : null;
  if (thread?.realtime === realtime && thread.worker.threadId >= 0) return thread.own();
  if (thread) void thread.worker.terminate();
  return (await startLaneThread(realtime, timeoutMs)).own();
}

/**
 * Starts the RSS lane of pid on a worker thread. Resolves once its first reading arrived (that batch
 * has gone to onBatch already); rejects if the first reading fails or does not come in time.
 */
export async function startRssLane(options: RssLaneOptions): Promise<RssLane> {
  const { pid, intervalMs, onBatch } = options;
  const batchMs = options.batchMs ?? 50;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const realtime = options.realtime ?? true;
  const control = new Int32Array(new SharedArrayBuffer(4)); // [0]: 1 = stop
  const thread = await laneThread(realtime, startTimeoutMs);
  if (options.spare) spare = startLaneThread(realtime, startTimeoutMs).catch(() => null);
  const hrOrigin = process.hrtime.bigint() - BigInt(Math.round((performance.now() - options.origin) * 1e6));
  thread.worker.postMessage({ pid, intervalMs, batchMs, page: pageSize(), control: control.buffer, hrOrigin });
  return laneOn(thread, control, { onBatch, startTimeoutMs });
}

/** The lane of a thread given its target: batches to onBatch until it stops. */
function laneOn(
  thread: LaneThread,
  control: Int32Array,
  { onBatch, startTimeoutMs }: { onBatch: (batch: RssBatch) => void; startTimeoutMs: number },
): Promise<RssLane> {
  const { worker, tid, scheduling } = thread;
  let stopping: Promise<void> | null = null;
  let ended = false;
  let started = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));

  return new Promise<RssLane>((resolve, reject) => {
    const startTimer = setTimeout(() => {
      endWith(`the RSS lane thread gave no reading within ${startTimeoutMs} ms`, false);
    }, startTimeoutMs);

    /** Delivers the one final batch (synthesised when the thread failed without sending one). */
    const endWith = (error: string | null, gone: boolean, batch?: RssBatch) => {
      if (ended) return;
      ended = true;
      clearTimeout(startTimer);
      control[0] = 1;
      Atomics.notify(control, 0);
      const final: RssBatch = batch ?? { t: [], rss: [], reads: [], missed: 0, upTo: -1, final: true, error, gone };
      if (!started) {
        void worker.terminate();
        reject(new RssLaneError(error ?? "the RSS lane stopped before it started"));
        return;
      }
      onBatch({ ...final, final: true });
    };

    worker.on("message", (m: RssBatch) => {
      if (ended) return;
      if (m.final) {
        endWith(m.error, m.gone, m);
        return;
      }
      onBatch(m);
      if (!started) {
        started = true;
        clearTimeout(startTimer);
        resolve(lane);
      }
    });
    worker.on("error", (e) => endWith(`the RSS lane thread failed: ${e.message}`, false));
    // Node delivers the messages a worker sent before its 'exit' event, so after a stop this only
    // ends a lane whose thread died without a final batch.
    worker.on("exit", (code) => endWith(stopping ? null : `the RSS lane thread exited (code ${code})`, false));
    // A lane nobody stopped must not keep the process alive (stop() waits with a timer of its own).
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();

    const lane: RssLane = {
      get tid() {
        return tid;
      },
      get scheduling() {
        return scheduling;
      },
      stop() {
        stopping ??= (async () => {
          control[0] = 1;
          Atomics.notify(control, 0);
          // The worker answers the wake-up with its final batch and exits; a wedged one is terminated.
          await withTimeout(exited, STOP_TIMEOUT_MS, "the RSS lane thread's exit").catch(() => worker.terminate());
          await exited;
          endWith(null, false);
        })();
        return stopping;
      },
    };
  });
}
