// The out-of-process memory sampler, in two lanes that never wait for each other:
// - RSS lane: every intervalMs a synchronous read of /proc/PID/statm (microseconds), on a worker
//   thread of its own (rss-lane.ts). It keeps its cadence whatever the target does, including native
//   work (a major GC, JSON.stringify of a large frame, sync zlib or crypto) during which the target's
//   inspector cannot answer, and whatever this process's main thread does.
// - Heap lane: Runtime.getHeapUsage through the inspector, one request in flight at a time, each
//   sample stamped with the time it was answered. While the target runs native code no answer comes:
//   that stretch is recorded as a gap (a {t, heapGapMs} line), never filled in.
// Both lanes are deadline-scheduled: slot k is due at start + k·interval; a late lane skips the slots
// it missed instead of drifting, so the achieved intervals are honest and reported beside the figures.
import { createWriteStream, mkdirSync, openSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import type { RssSplit } from "../results/rss-split.js";
import type { IntervalStats } from "../results/schema.js";
import { cpuDelta, cpuTimeMsOrNull } from "./cpu.js";
import type { HeapUsage, InspectorClient } from "./inspector.js";
import { distribution, intervalStats } from "./interval-stats.js";
import { defaultHeapIntervalMs } from "./lane-defaults.js";
import { type MemoryUsageReading, readMemoryUsage } from "./memory-usage.js";
import { isAlive, readRssOnce, readVmHwm, resetVmHwm } from "./procfs.js";
import { type RssBatch, type RssLane, type RssLaneScheduling, startRssLane } from "./rss-lane.js";
import { rssSplitTracker, splitPoint } from "./rss-split.js";
import { stampWall, wallClock } from "./wall-clock.js";

/** An RSS lane sample: t in ms from the sampler's origin (monotonic clock), rss in bytes. */
export interface RssSample {
  t: number;
  rss: number;
}

/** A heap lane sample: t is when the answer arrived (ms from the origin); bytes of the V8 heap. */
export interface HeapSample {
  t: number;
  /** When the request was sent (ms from the origin): the target answered between asked and t. */
  asked: number;
  heapUsed: number;
  heapTotal: number;
  /** The rest of the target's process.memoryUsage() at this tick, when the lane reads the split. */
  external?: number;
  arrayBuffers?: number;
  /** The target's own RSS reading at this tick (the RSS lane's samples are separate). */
  tickRss?: number;
}

/** A stretch without a heap answer longer than this is written to the samples file as a gap. */
export function heapGapThresholdMs(heapIntervalMs: number): number {
  return Math.max(3 * heapIntervalMs, 30);
}

export interface SamplerOptions {
  /** The process to sample: the one owning the server's listening socket (see findListeningPid). */
  pid: number;
  /** A connected inspector of that same process (connectInspector / findInspector); null samples RSS only. */
  inspector: InspectorClient | null;
  /** Target interval of the RSS lane (ms), e.g. DEFAULT_RSS_INTERVAL_MS. */
  intervalMs: number;
  /** Target interval of the heap lane (ms). Default: defaultHeapIntervalMs(intervalMs). */
  heapIntervalMs?: number;
  /** JSONL file for samples, gaps and phase lines; parent directories are created. */
  file?: string;
  /** Create the file exclusively (O_EXCL): an existing entry, a symbolic link included, throws at start. */
  exclusive?: boolean;
  /**
   * Called once when a write to the file fails (ENOSPC, EIO); sampling then ends (the summary's error
   * says why). Without it a failed write is only reported in the summary and sampling goes on.
   */
  onFileError?: (error: NodeJS.ErrnoException) => void;
  /** performance.now() value that is t = 0 (e.g. the cell's start). Default: when the sampler starts. */
  origin?: number;
  /**
   * Timeout of one heap request (ms). A blocked target answers late, not never, so this only guards
   * against an inspector that stopped answering altogether. Default 30,000.
   */
  callTimeoutMs?: number;
  /**
   * Reset the kernel's peak RSS (VmHWM) when sampling starts, so hwmRssBytes covers the sampling
   * window like peakRssBytes does, not the process's startup. Default true.
   */
  resetHwm?: boolean;
  /** Ask for real-time scheduling of the RSS lane's thread when permitted (see startRssLane). Default true. */
  realtime?: boolean;
  /**
   * Read the RSS split on each heap tick: one Runtime.evaluate of process.memoryUsage() instead of
   * Runtime.getHeapUsage (memory-usage.ts). A target that cannot run it falls back to getHeapUsage.
   * Default true.
   */
  split?: boolean;
  /** Stamp every line of the file with "wall" (epoch ms) beside its monotonic t. Default false. */
  wallClock?: boolean;
  /** How often the RSS lane hands its readings over, and so the file is written (ms). Default 50. */
  batchMs?: number;
  /** Called after each RSS sample is recorded. */
  onRss?: (sample: RssSample) => void;
  /** Called after each heap sample is recorded. */
  onHeap?: (sample: HeapSample) => void;
}

export interface SamplerSummary {
  /** RSS lane samples recorded. */
  rssSamples: number;
  /** Heap lane samples recorded (answers received while sampling ran). */
  heapSamples: number;
  /** Highest heapUsed answered (bytes); null with no heap samples. */
  peakHeapBytes: number | null;
  /** Highest RSS sampled (bytes); null with no samples. */
  peakRssBytes: number | null;
  /** The kernel's peak RSS (VmHWM) read when sampling ended, or the last one read while it ran (bytes). */
  hwmRssBytes: number | null;
  /** True when VmHWM was reset at the start, so hwmRssBytes covers the sampling window only. */
  hwmReset: boolean;
  /** Achieved interval between consecutive RSS samples (ms); null with fewer than two. */
  interval: IntervalStats | null;
  /** Achieved interval between consecutive heap answers (ms); null with fewer than two. */
  heapInterval: IntervalStats | null;
  /** The longest stretch without a heap answer (ms), from the lane's start to the end of sampling. */
  heapGapMaxMs: number | null;
  /** Stretches without a heap answer longer than heapGapThresholdMs (each is a gap line in the file). */
  heapGaps: number;
  /** How long one /proc RSS read took (ms); null with no samples. */
  rssReadMs: IntervalStats | null;
  /** From sending a heap request to its answer (ms); null with no heap samples. */
  heapWaitMs: IntervalStats | null;
  /** RSS slots skipped because the harness's own event loop was late (the lane never drifts). */
  missedSlots: number;
  /** Heap requests that failed or timed out while the target lived. */
  failedHeapReads: number;
  /** CPU time (user + system) the target used while sampling ran (ms); null if unreadable. */
  targetCpuMs: number | null;
  /** How the RSS lane's thread was scheduled: "fifo" (real-time) or "normal". */
  rssLaneScheduling: RssLaneScheduling;
  /** The configured intervals (ms). */
  intervalMs: number;
  heapIntervalMs: number;
  /** From the start of sampling to its end (ms). */
  durationMs: number;
  file: string | null;
  /** The RSS split over the heap lane's ticks (results/rss-split.ts); null when not read. */
  rssSplit: RssSplit | null;
  /** Why sampling ended early (target exited, inspector closed), or null after a clean stop(). */
  error: string | null;
}

export interface Sampler {
  readonly pid: number;
  /** ms since the origin, on the same clock as the samples' t. */
  now(): number;
  /** Writes a phase line {t, phase, ...extra} to the samples file; returns t. */
  mark(phase: string, extra?: Record<string, unknown>): number;
  /** Writes a line {t, ...fields} to the samples file (in time order with the samples); returns t. */
  record(fields: Record<string, unknown>): number;
  /** The most recent RSS sample, or null. */
  readonly lastRss: RssSample | null;
  /** The most recent heap sample, or null. */
  readonly lastHeap: HeapSample | null;
  /** True until stop() is called or sampling ends by itself. */
  readonly running: boolean;
  /** The kernel thread id of the RSS lane's worker thread (gone once sampling has ended), or null if unknown. */
  readonly rssLaneTid: number | null;
  /** Resolves once sampling has ended for any reason (stop(), target exit) and the file is flushed. Never rejects. */
  readonly ended: Promise<SamplerSummary>;
  /** Stops both lanes at once (a heap answer still outstanding is not waited for), flushes the file. Idempotent; never rejects. */
  stop(): Promise<SamplerSummary>;
}

const HWM_EVERY_MS = 100;
/** The RSS lane's worker sends its readings this often: a 1 ms lane wakes the main thread 20 times a second. */
const RSS_BATCH_MS = 50;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Slot bookkeeping of the heap lane (deadline-scheduled): slot k is due at start + k·interval. */
function deadlineLane(intervalMs: number, start: number) {
  let k = 0;
  let missed = 0;
  // Node's timers fire on a whole-millisecond clock, up to a millisecond early: a slot this close is due.
  const slack = Math.min(1, intervalMs / 2);
  return {
    get dueAt() {
      return start + k * intervalMs;
    },
    isDue(now: number) {
      return now >= start + k * intervalMs - slack;
    },
    /** Moves to the next slot still in the future, counting the ones skipped (the lane never drifts). */
    advance() {
      const elapsed = performance.now() - start;
      const nextK = Math.max(k + 1, Math.ceil(elapsed / intervalMs));
      missed += nextK - (k + 1);
      k = nextK;
    },
    get missed() {
      return missed;
    },
  };
}

/**
 * Starts sampling pid: RSS every intervalMs, heap every heapIntervalMs. Resolves once the first RSS
 * read worked; rejects if pid is gone or its inspector is closed.
 */
export async function startSampler(options: SamplerOptions): Promise<Sampler> {
  const { pid, inspector, intervalMs } = options;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0)
    throw new RangeError(`intervalMs must be > 0 (got ${intervalMs})`);
  const heapIntervalMs = options.heapIntervalMs ?? defaultHeapIntervalMs(intervalMs);
  if (!Number.isFinite(heapIntervalMs) || heapIntervalMs <= 0)
    throw new RangeError(`heapIntervalMs must be > 0 (got ${heapIntervalMs})`);
  const gapThreshold = heapGapThresholdMs(heapIntervalMs);
  const callTimeoutMs = options.callTimeoutMs ?? 30_000;
  // One read here first: a pid that is gone fails now, with the /proc error, before any thread starts.
  try {
    readRssOnce(pid);
  } catch (e) {
    throw new Error(`cannot sample pid ${pid}: ${(e as Error).message}`);
  }
  if (inspector?.isClosed) throw new Error(`cannot sample pid ${pid}: its inspector is closed`);
  // Also the first pidusage call, which runs `getconf` once: before any lane starts.
  const cpuStart = await cpuTimeMsOrNull(pid);
  let hwmReset = false;
  if (options.resetHwm ?? true) {
    try {
      resetVmHwm(pid);
      hwmReset = true;
    } catch {
      // not permitted here: hwmReset stays false and the summary says so
    }
  }

  let stream: WriteStream | null = null;
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true });
    // Exclusive: opened here, so a refusal (EEXIST, ELOOP through a link) comes before any lane starts.
    stream = options.exclusive
      ? createWriteStream(options.file, { fd: openSync(options.file, "wx") })
      : createWriteStream(options.file, { flags: "w" });
  }
  let streamError: string | null = null;
  // A write error is reported in the summary at the end rather than thrown mid-run; with onFileError
  // it also ends sampling (nothing more could be kept).
  stream?.on("error", (e: NodeJS.ErrnoException) => {
    if (streamError !== null) return;
    streamError = `samples file ${options.file}: ${e.message}`;
    if (!options.onFileError) return;
    options.onFileError(e);
    if (rssLane) void finish(streamError);
  });
  // The file is in time order, but RSS readings reach this thread in batches, after heap answers and
  // marks made meanwhile. So lines wait in two queues (each already in time order) and go out merged,
  // up to the time the RSS lane has reported through; one write per batch keeps a 1 ms lane cheap.
  type Line = { t: number; line: string };
  let rssLines: Line[] = [];
  let mainLines: Line[] = [];
  const write = (t: number, line: string) => {
    if (stream) mainLines.push({ t, line });
  };
  const release = (upTo: number) => {
    if (!stream) return;
    wall?.sync();
    let out = "";
    let i = 0;
    let j = 0;
    for (;;) {
      const a = rssLines[i];
      const b = mainLines[j];
      const next = a && (!b || a.t <= b.t) ? a : b;
      if (!next || next.t > upTo) break;
      out += `${wall ? stampWall(next.line, wall.at(next.t)) : next.line}\n`;
      if (next === a) i++;
      else j++;
    }
    rssLines = rssLines.slice(i);
    mainLines = mainLines.slice(j);
    if (out && !streamError) stream.write(out);
  };

  const origin = options.origin ?? performance.now();
  // Wall-clock stamps (epoch ms) for files merged with other hosts' data: release() is only called after this.
  const wall = options.wallClock ? wallClock(origin) : null;
  const now = () => performance.now() - origin;
  const rssTimes: number[] = [];
  const rssReads: number[] = [];
  const heapTimes: number[] = [];
  const heapWaits: number[] = [];
  let peakHeap: number | null = null;
  let peakRss: number | null = null;
  let hwm: number | null = null;
  let lastHwmRead = Number.NEGATIVE_INFINITY;
  let lastRss: RssSample | null = null;
  let lastHeap: HeapSample | null = null;
  let missedSlots = 0;
  let heapGapMax = 0;
  let heapGaps = 0;
  let failedHeap = 0;
  const split = rssSplitTracker();
  let splitting = options.split ?? true;
  let running = true;
  let finishing = false;
  let heapInFlight = false;
  let timer: NodeJS.Timeout | null = null;
  let laneError: string | null = null;
  let resolveEnded: (s: SamplerSummary) => void = () => {};
  const ended = new Promise<SamplerSummary>((r) => {
    resolveEnded = r;
  });

  const readHwm = () => {
    try {
      hwm = readVmHwm(pid) ?? hwm;
    } catch {
      // gone: keep the last value read
    }
  };

  const onBatch = (b: RssBatch) => {
    for (let i = 0; i < b.t.length; i++) {
      const sample: RssSample = { t: b.t[i] as number, rss: b.rss[i] as number };
      rssTimes.push(sample.t);
      rssReads.push(b.reads[i] as number);
      lastRss = sample;
      if (peakRss === null || sample.rss > peakRss) peakRss = sample.rss;
      if (stream) rssLines.push({ t: sample.t, line: `{"t":${r3(sample.t)},"rss":${sample.rss}}` });
      try {
        options.onRss?.(sample);
      } catch {
        // a throwing observer must not stop the measurement
      }
    }
    missedSlots = Math.max(missedSlots, b.missed); // cumulative; a batch made up after a crash says 0
    if (performance.now() - lastHwmRead >= HWM_EVERY_MS) {
      lastHwmRead = performance.now();
      readHwm();
    }
    if (b.final) {
      // finish() releases every line itself, after the heap lane's last one.
      if (b.error !== null) {
        laneError = b.gone ? `target pid ${pid} exited during sampling` : `RSS lane of pid ${pid}: ${b.error}`;
        if (rssLane) void finish(laneError);
      }
      return;
    }
    release(b.upTo);
  };

  // Set once the lane runs: a final batch that comes before only records its error.
  let rssLane: RssLane | null = null;
  rssLane = await startRssLane({
    pid,
    intervalMs,
    origin,
    batchMs: options.batchMs ?? RSS_BATCH_MS,
    realtime: options.realtime ?? true,
    onBatch,
  }).catch((e: Error) => {
    stream?.end();
    throw new Error(`cannot sample pid ${pid}: ${e.message}`);
  });
  const startT = now();

  /** Closes the stretch since the last heap answer (or the lane's start) at time t. */
  const closeHeapStretch = (t: number) => {
    if (!inspector) return; // RSS only: no heap lane, no gaps
    const since = lastHeap?.t ?? startT;
    const gap = t - since;
    if (gap > heapGapMax) heapGapMax = gap;
    if (gap > gapThreshold) {
      heapGaps++;
      write(t, `{"t":${r3(t)},"heapGapMs":${r3(gap)}}`);
    }
  };

  async function finish(error: string | null) {
    if (finishing) return;
    finishing = true;
    running = false;
    if (timer) clearTimeout(timer);
    const endT = now();
    await rssLane?.stop();
    closeHeapStretch(endT);
    readHwm();
    const cpuEnd = await cpuTimeMsOrNull(pid);
    release(Number.POSITIVE_INFINITY);
    if (stream) {
      const s = stream;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 5_000); // a stuck disk must not hang the run
        s.end(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    resolveEnded({
      rssSamples: rssTimes.length,
      heapSamples: heapTimes.length,
      peakHeapBytes: peakHeap,
      peakRssBytes: peakRss,
      hwmRssBytes: hwm,
      hwmReset,
      interval: intervalStats(rssTimes),
      heapInterval: intervalStats(heapTimes),
      heapGapMaxMs: inspector ? heapGapMax : null,
      heapGaps,
      rssReadMs: rssReads.length > 0 ? distribution(rssReads) : null,
      heapWaitMs: heapWaits.length > 0 ? distribution(heapWaits) : null,
      missedSlots,
      failedHeapReads: failedHeap,
      targetCpuMs: cpuDelta(cpuStart, cpuEnd),
      rssLaneScheduling: rssLane?.scheduling ?? "normal",
      intervalMs,
      heapIntervalMs,
      durationMs: endT - startT,
      file: options.file ?? null,
      rssSplit: split.summary(),
      error: error ?? streamError,
    });
  }
  // The lane may have ended (target gone), or the file failed, before this function got here.
  if (laneError !== null) void finish(laneError);
  else if (streamError !== null && options.onFileError) void finish(streamError);
  const lane = rssLane;

  const goneReason = (detail: string) =>
    isAlive(pid)
      ? `inspector of pid ${pid} closed during sampling (${detail})`
      : `target pid ${pid} exited during sampling`;

  // The heap lane runs on this thread: one request in flight at a time, never waited for by the RSS lane.
  const heapLane = deadlineLane(heapIntervalMs, performance.now());

  const schedule = () => {
    if (!running || heapInFlight) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, heapLane.dueAt - performance.now()));
  };

  let asked = 0;
  function onHeapAnswer(h: HeapUsage | MemoryUsageReading) {
    if (!heapInFlight) return; // an answer after its request timed out
    heapInFlight = false;
    if (!running) return; // answered after sampling ended: outside the window
    const t = now();
    closeHeapStretch(t);
    const sample: HeapSample = { t, asked, heapUsed: h.usedSize, heapTotal: h.totalSize };
    let splitFields = "";
    if ("rss" in h) {
      Object.assign(sample, { external: h.external, arrayBuffers: h.arrayBuffers, tickRss: h.rss });
      split.add(splitPoint(t, h));
      splitFields = `,"external":${h.external},"arrayBuffers":${h.arrayBuffers},"tickRss":${h.rss}`;
    }
    heapTimes.push(t);
    heapWaits.push(t - asked);
    lastHeap = sample;
    if (peakHeap === null || sample.heapUsed > peakHeap) peakHeap = sample.heapUsed;
    write(t, `{"t":${r3(t)},"heapUsed":${sample.heapUsed},"heapTotal":${sample.heapTotal}${splitFields}}`);
    try {
      options.onHeap?.(sample);
    } catch {
      // a throwing observer must not stop the measurement
    }
    heapLane.advance();
    schedule();
  }
  function onHeapFailure(e: unknown) {
    if (!heapInFlight) return;
    heapInFlight = false;
    if (!running) return;
    if (inspector?.isClosed || !isAlive(pid)) {
      void finish(goneReason((e as Error)?.message ?? String(e)));
      return;
    }
    failedHeap++;
    heapLane.advance();
    schedule();
  }

  const askHeap = () => {
    if (!inspector) return;
    heapInFlight = true;
    asked = now();
    if (!splitting) {
      inspector.getHeapUsage(callTimeoutMs).then(onHeapAnswer, onHeapFailure);
      return;
    }
    readMemoryUsage(inspector, callTimeoutMs).then(onHeapAnswer, (e: unknown) => {
      // A target that cannot run the expression (it threw, or answered no numbers): heap only from now on.
      if (!inspector.isClosed && isAlive(pid) && /evaluate threw|did not answer/.test(String(e))) splitting = false;
      onHeapFailure(e);
    });
  };

  const tick = () => {
    timer = null;
    if (!running) return;
    if (!heapInFlight && heapLane.isDue(performance.now())) askHeap();
    schedule();
  };

  // End promptly when the inspector socket closes (target killed), even between samples.
  void inspector?.closed.then((reason) => {
    if (running) void finish(goneReason(reason));
  });

  if (inspector) tick();

  return {
    pid,
    now,
    mark(phase, extra) {
      const t = now();
      if (!finishing) write(t, JSON.stringify({ t: r3(t), phase, ...extra }));
      return t;
    },
    record(fields) {
      const t = now();
      if (!finishing) write(t, JSON.stringify({ t: r3(t), ...fields }));
      return t;
    },
    get lastRss() {
      return lastRss;
    },
    get lastHeap() {
      return lastHeap;
    },
    get running() {
      return running;
    },
    get rssLaneTid() {
      return lane.tid;
    },
    ended,
    stop() {
      if (running) void finish(null);
      return ended;
    },
  };
}

/** Forces two full GCs in the target (the second collects what the first's finalizers freed) and returns heap used (bytes). */
export async function postGcHeap(inspector: InspectorClient, options: { timeoutMs?: number } = {}): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  await inspector.collectGarbage(timeoutMs);
  await inspector.collectGarbage(timeoutMs);
  const heap = await inspector.getHeapUsage(timeoutMs);
  return heap.usedSize;
}
