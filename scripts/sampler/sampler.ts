import { cpuDelta, cpuTimeMsOrNull } from "./cpu.js";
import { type HeapLane, startHeapLane } from "./heap-lane.js";
import type { HeapUsage, InspectorClient } from "./inspector.js";
import { defaultHeapIntervalMs } from "./lane-defaults.js";
import type { MemoryUsageReading } from "./memory-usage.js";
import { laneIntervalFor, type ProcessStatsSource, processStatsSource, psReading } from "./process-stats.js";
import { readRssOnce, resetVmHwm } from "./procfs.js";
import { startPsLane } from "./ps-lane.js";
import { type RssBatch, type RssLane, startRssLane } from "./rss-lane.js";
import { createSampleTally, type HeapSample, type RssSample, type SamplerSummary } from "./sample-tally.js";

export type { HeapSample, RssSample, SamplerSummary };

import { openSamplesFile, type SamplesFile } from "./samples-file.js";

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
  /** Keep the next RSS lane's thread ready (see startRssLane): for one sampled process after another. Default false. */
  spareLane?: boolean;
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

/** Set-up: the lanes' intervals, checked; the RSS lane's as its source can keep it. */
function laneIntervals(options: SamplerOptions, source: ProcessStatsSource) {
  if (!Number.isFinite(options.intervalMs) || options.intervalMs <= 0)
    throw new RangeError(`intervalMs must be > 0 (got ${options.intervalMs})`);
  const intervalMs = laneIntervalFor(source, options.intervalMs);
  const heapIntervalMs = options.heapIntervalMs ?? defaultHeapIntervalMs(options.intervalMs);
  if (!Number.isFinite(heapIntervalMs) || heapIntervalMs <= 0)
    throw new RangeError(`heapIntervalMs must be > 0 (got ${heapIntervalMs})`);
  return { intervalMs, heapIntervalMs };
}

/** Set-up: the target is there and its peak RSS counts from now; its CPU time so far. */
async function prepareTarget(options: SamplerOptions, source: ProcessStatsSource) {
  const { pid, inspector } = options;
  // One read here first: a pid that is gone fails now, with the /proc or ps error, before any lane starts.
  try {
    if (source === "ps") await psReading(pid);
    else readRssOnce(pid);
  } catch (e) {
    throw new Error(`cannot sample pid ${pid}: ${(e as Error).message}`);
  }
  if (inspector?.isClosed) throw new Error(`cannot sample pid ${pid}: its inspector is closed`);
  // Also the first CPU reading, which asks getconf for the clock tick once: before any lane starts.
  const cpuStart = await cpuTimeMsOrNull(pid);
  let hwmReset = false;
  // VmHWM is Linux's (/proc/PID/status): the portable path has no kernel peak.
  if ((options.resetHwm ?? true) && source === "proc") {
    try {
      resetVmHwm(pid);
      hwmReset = true;
    } catch {
      // not permitted here: hwmReset stays false and the summary says so
    }
  }
  return { cpuStart, hwmReset };
}

/** A heap answer as a sample and as its samples-file line (with the RSS split when it was read). */
function heapSample(t: number, asked: number, h: HeapUsage | MemoryUsageReading): { sample: HeapSample; line: string } {
  const sample: HeapSample = { t, asked, heapUsed: h.usedSize, heapTotal: h.totalSize };
  let splitFields = "";
  if ("rss" in h) {
    Object.assign(sample, { external: h.external, arrayBuffers: h.arrayBuffers, tickRss: h.rss });
    splitFields = `,"external":${h.external},"arrayBuffers":${h.arrayBuffers},"tickRss":${h.rss}`;
  }
  return { sample, line: `{"t":${r3(t)},"heapUsed":${sample.heapUsed},"heapTotal":${sample.heapTotal}${splitFields}}` };
}

/** Calls an observer; a throwing one must not stop the measurement. */
function tell<T>(observer: ((x: T) => void) | undefined, x: T): void {
  try {
    observer?.(x);
  } catch {
    // ignored on purpose
  }
}

/** The lanes' intervals and what prepareTarget found: fixed for the whole run. */
interface RunSetup {
  source: ProcessStatsSource;
  intervalMs: number;
  heapIntervalMs: number;
  cpuStart: Awaited<ReturnType<typeof cpuTimeMsOrNull>>;
  hwmReset: boolean;
}

/** One sampling run: the samples file, the tally, both lanes, and how the run ends. */
class SamplingRun {
  readonly samples: SamplesFile;
  readonly tally: ReturnType<typeof createSampleTally>;
  readonly ended: Promise<SamplerSummary>;
  running = true;
  finishing = false;
  laneError: string | null = null;
  heapLane: HeapLane | null = null;
  /** Set once the lane runs: a final batch that comes before only records its error. */
  rssLane: RssLane | null = null;
  startT = 0;
  private lastHwmRead = Number.NEGATIVE_INFINITY;
  private resolveEnded: (s: SamplerSummary) => void = () => {};

  constructor(
    private readonly options: SamplerOptions,
    private readonly setup: RunSetup,
    readonly now: () => number,
    origin: number,
  ) {
    // A write error is reported in the summary; with onFileError it also ends sampling (nothing more could be kept).
    this.samples = openSamplesFile({
      file: options.file,
      exclusive: options.exclusive,
      wallOrigin: options.wallClock ? origin : null,
      onError: (e, message) => {
        if (!options.onFileError) return;
        options.onFileError(e);
        if (this.rssLane) void this.finish(message);
      },
    });
    this.tally = createSampleTally(options.pid, heapGapThresholdMs(setup.heapIntervalMs));
    this.ended = new Promise<SamplerSummary>((r) => {
      this.resolveEnded = r;
    });
  }

  /** The RSS lane's readings: tallied, written, told; a final batch with an error ends the run. */
  onBatch(b: RssBatch): void {
    const { options, tally, samples } = this;
    for (let i = 0; i < b.t.length; i++) {
      const sample: RssSample = { t: b.t[i] as number, rss: b.rss[i] as number };
      tally.rss(sample, b.reads[i] as number);
      samples.writeRss(sample.t, `{"t":${r3(sample.t)},"rss":${sample.rss}}`);
      tell(options.onRss, sample);
    }
    tally.missed(b.missed);
    if (this.setup.source === "proc" && performance.now() - this.lastHwmRead >= HWM_EVERY_MS) {
      this.lastHwmRead = performance.now();
      tally.readHwm();
    }
    if (b.final) {
      // finish() releases every line itself, after the heap lane's last one.
      if (b.error !== null) {
        const pid = options.pid;
        this.laneError = b.gone ? `target pid ${pid} exited during sampling` : `RSS lane of pid ${pid}: ${b.error}`;
        if (this.rssLane) void this.finish(this.laneError);
      }
      return;
    }
    samples.release(b.upTo);
  }

  /** Closes the stretch since the last heap answer (or the lane's start) at time t. */
  private closeHeapStretch(t: number): void {
    if (!this.options.inspector) return; // RSS only: no heap lane, no gaps
    const gap = this.tally.stretch(this.tally.lastHeap?.t ?? this.startT, t);
    if (gap !== null) this.samples.write(t, `{"t":${r3(t)},"heapGapMs":${r3(gap)}}`);
  }

  onHeapAnswer(t: number, asked: number, h: HeapUsage | MemoryUsageReading): void {
    this.closeHeapStretch(t);
    const { sample, line } = heapSample(t, asked, h);
    this.tally.heap(sample, "rss" in h ? h : null);
    this.samples.write(t, line);
    tell(this.options.onHeap, sample);
  }

  async finish(error: string | null): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    this.running = false;
    this.heapLane?.stop();
    const endT = this.now();
    await this.rssLane?.stop();
    this.closeHeapStretch(endT);
    if (this.setup.source === "proc") this.tally.readHwm();
    const { options, setup } = this;
    const cpuEnd = await cpuTimeMsOrNull(options.pid);
    this.samples.release(Number.POSITIVE_INFINITY);
    await this.samples.close();
    this.resolveEnded(
      this.tally.summary({
        withHeap: options.inspector !== null,
        hwmReset: setup.hwmReset,
        failedHeapReads: this.heapLane?.failed ?? 0,
        targetCpuMs: cpuDelta(setup.cpuStart, cpuEnd),
        rssLaneScheduling: this.rssLane?.scheduling ?? "normal",
        rssSource: setup.source,
        intervalMs: setup.intervalMs,
        heapIntervalMs: setup.heapIntervalMs,
        durationMs: endT - this.startT,
        file: options.file ?? null,
        error: error ?? this.samples.error,
      }),
    );
  }
}

/**
 * Starts sampling pid: RSS every intervalMs, heap every heapIntervalMs. Resolves once the first RSS
 * read worked; rejects if pid is gone or its inspector is closed.
 */
export async function startSampler(options: SamplerOptions): Promise<Sampler> {
  const { pid, inspector } = options;
  const source = processStatsSource();
  const { intervalMs, heapIntervalMs } = laneIntervals(options, source);
  const callTimeoutMs = options.callTimeoutMs ?? 30_000;
  const { cpuStart, hwmReset } = await prepareTarget(options, source);
  const origin = options.origin ?? performance.now();
  const now = () => performance.now() - origin;
  const run = new SamplingRun(options, { source, intervalMs, heapIntervalMs, cpuStart, hwmReset }, now, origin);
  const onBatch = (b: RssBatch) => run.onBatch(b);
  run.rssLane = await (source === "ps"
    ? startPsLane({ pid, intervalMs, origin, onBatch })
    : startRssLane({
        pid,
        intervalMs,
        origin,
        batchMs: options.batchMs ?? RSS_BATCH_MS,
        realtime: options.realtime ?? true,
        spare: options.spareLane ?? false,
        onBatch,
      })
  ).catch((e: Error) => {
    void run.samples.close();
    throw new Error(`cannot sample pid ${pid}: ${e.message}`);
  });
  run.startT = now();
  // The lane may have ended (target gone), or the file failed, before this function got here.
  if (run.laneError !== null) void run.finish(run.laneError);
  else if (run.samples.error !== null && options.onFileError) void run.finish(run.samples.error);
  const lane = run.rssLane;
  // The heap lane runs on this thread: one request in flight at a time, never waited for by the RSS lane.
  if (inspector && run.running) {
    run.heapLane = startHeapLane({
      pid,
      inspector,
      intervalMs: heapIntervalMs,
      callTimeoutMs,
      split: options.split ?? true,
      now,
      onAnswer: (t, asked, h) => run.onHeapAnswer(t, asked, h),
      onGone: (reason) => void run.finish(reason),
    });
  }
  return samplerHandle({
    pid,
    now,
    samples: run.samples,
    tally: run.tally,
    lane,
    ended: run.ended,
    finish: (error) => run.finish(error),
    isRunning: () => run.running,
    isFinishing: () => run.finishing,
  });
}

/** The running sampler as its callers see it. */
function samplerHandle(o: {
  pid: number;
  now: () => number;
  samples: SamplesFile;
  tally: ReturnType<typeof createSampleTally>;
  lane: RssLane;
  ended: Promise<SamplerSummary>;
  finish: (error: string | null) => Promise<void>;
  isRunning: () => boolean;
  isFinishing: () => boolean;
}): Sampler {
  const line = (fields: Record<string, unknown>) => {
    const t = o.now();
    if (!o.isFinishing()) o.samples.write(t, JSON.stringify({ t: r3(t), ...fields }));
    return t;
  };
  return {
    pid: o.pid,
    now: o.now,
    mark: (phase, extra) => line({ phase, ...extra }),
    record: (fields) => line(fields),
    get lastRss() {
      return o.tally.lastRss;
    },
    get lastHeap() {
      return o.tally.lastHeap;
    },
    get running() {
      return o.isRunning();
    },
    get rssLaneTid() {
      return o.lane.tid;
    },
    ended: o.ended,
    stop() {
      if (o.isRunning()) void o.finish(null);
      return o.ended;
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
