// The out-of-process memory sampler: every intervalMs, RSS from /proc (pidusage) and V8 heap through
// the inspector (Runtime.getHeapUsage), so a target whose event loop is blocked is still measured.
// Deadline-scheduled: slot k is due at origin + k·interval; a late sample skips the slots it missed
// instead of drifting, so the achieved interval stays honest and is reported beside the figures.
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import pidusage from "pidusage";
import type { IntervalStats } from "../results.js";
import type { InspectorClient } from "./inspector.js";
import { distribution, intervalStats } from "./interval-stats.js";
import { isAlive, readVmHwm, resetVmHwm } from "./procfs.js";

/** One sample line: t in ms from the sampler's origin (monotonic clock), memory in bytes. */
export interface Sample {
  t: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
}

export interface SamplerOptions {
  /** The process to sample: the one owning the server's listening socket (see findListeningPid). */
  pid: number;
  /** A connected inspector of that same process (connectInspector / findInspector). */
  inspector: InspectorClient;
  /** Target interval between samples (ms), e.g. 10. */
  intervalMs: number;
  /** JSONL file for samples and phase lines, written as they come; parent directories are created. */
  file?: string;
  /** performance.now() value that is t = 0 (e.g. the cell's start). Default: when the sampler starts. */
  origin?: number;
  /** Timeout for each sample's inspector call (ms). A timed-out sample is skipped and counted. Default 1,000. */
  callTimeoutMs?: number;
  /**
   * Reset the kernel's peak RSS (VmHWM) when sampling starts, so hwmRssBytes covers the sampling
   * window like peakRssBytes does, not the process's startup. Default true.
   */
  resetHwm?: boolean;
  /** Called after each sample is recorded (e.g. to wait for "n samples" in a test). */
  onSample?: (sample: Sample) => void;
}

export interface SamplerSummary {
  /** Samples recorded. */
  samples: number;
  /** Highest heapUsed sampled (bytes); null with no samples. */
  peakHeapBytes: number | null;
  /** Highest RSS sampled (bytes); null with no samples. */
  peakRssBytes: number | null;
  /** The kernel's peak RSS (VmHWM) read when sampling ended, or the last one read while it ran (bytes). */
  hwmRssBytes: number | null;
  /** True when VmHWM was reset at the start, so hwmRssBytes covers the sampling window only. */
  hwmReset: boolean;
  /** Achieved interval between consecutive samples (ms); null with fewer than two samples. */
  interval: IntervalStats | null;
  /** How long each sample took, from issuing both reads to having both answers (ms); null with no samples. */
  sampleDurationMs: IntervalStats | null;
  /** Slots skipped because a sample took longer than the interval (the loop never drifts). */
  missedSlots: number;
  /** Samples dropped because a call failed or timed out while the target lived. */
  failedSamples: number;
  /** From the first sample's start to the end of sampling (ms). */
  durationMs: number;
  file: string | null;
  /** Why sampling ended early (target exited, inspector closed), or null after a clean stop(). */
  error: string | null;
}

export interface Sampler {
  readonly pid: number;
  /** ms since the origin, on the same clock as the samples' t. */
  now(): number;
  /** Writes a phase line {t, phase, ...extra} to the stream (after any sample in flight, so t stays ordered); returns t. */
  mark(phase: string, extra?: Record<string, unknown>): number;
  /** The most recent sample, or null. */
  readonly last: Sample | null;
  /** True until stop() is called or sampling ends by itself. */
  readonly running: boolean;
  /** Resolves once sampling has ended for any reason (stop(), target exit) and the file is flushed. Never rejects. */
  readonly ended: Promise<SamplerSummary>;
  /** Stops sampling, flushes the file and resolves with the summary. Idempotent; never rejects. */
  stop(): Promise<SamplerSummary>;
}

// pidusage keeps /proc/PID/stat open between calls and closes it only when the entry expires; its
// clear() forgets the entry without closing the fd, so we let entries expire (2 s after the last call).
const PIDUSAGE_OPTIONS = { usePs: false, maxage: 2_000 } as const;
const HWM_EVERY_N_SAMPLES = 50;

/** Reads RSS through pidusage's /proc mode (never `ps`, which costs about 10 ms a call). */
async function readRss(pid: number): Promise<number> {
  const s = await pidusage(pid, PIDUSAGE_OPTIONS);
  return s.memory;
}

function isGone(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === "ENOENT" || code === "ESRCH";
}

/**
 * Starts sampling pid every intervalMs. Resolves once the first RSS read worked (pidusage's first
 * call also runs `getconf`, which must not land in the measured cadence); rejects if pid is gone.
 */
export async function startSampler(options: SamplerOptions): Promise<Sampler> {
  const { pid, inspector, intervalMs } = options;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0)
    throw new RangeError(`intervalMs must be > 0 (got ${intervalMs})`);
  const callTimeoutMs = options.callTimeoutMs ?? 1_000;
  try {
    await readRss(pid);
  } catch (e) {
    throw new Error(`cannot sample pid ${pid}: ${(e as Error).message}`);
  }
  if (inspector.isClosed) throw new Error(`cannot sample pid ${pid}: its inspector is closed`);
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
    stream = createWriteStream(options.file, { flags: "w" });
  }
  let streamError: string | null = null;
  // A write error is reported in the summary at the end rather than thrown mid-run.
  stream?.on("error", (e) => {
    streamError ??= `samples file ${options.file}: ${e.message}`;
  });
  const write = (line: object) => {
    if (stream && !streamError) stream.write(`${JSON.stringify(line)}\n`);
  };

  const origin = options.origin ?? performance.now();
  const now = () => performance.now() - origin;
  const times: number[] = [];
  const durations: number[] = [];
  let peakHeap: number | null = null;
  let peakRss: number | null = null;
  let hwm: number | null = null;
  let last: Sample | null = null;
  let missed = 0;
  let failed = 0;
  let running = true;
  let inFlight = false;
  let queuedMarks: object[] = [];
  let timer: NodeJS.Timeout | null = null;
  let firstT: number | null = null;
  let resolveEnded: (s: SamplerSummary) => void = () => {};
  const ended = new Promise<SamplerSummary>((r) => {
    resolveEnded = r;
  });
  let finishing = false;

  const readHwm = () => {
    try {
      hwm = readVmHwm(pid) ?? hwm;
    } catch {
      // gone: keep the last value read
    }
  };

  const finish = async (error: string | null) => {
    if (finishing) return;
    finishing = true;
    running = false;
    if (timer) clearTimeout(timer);
    readHwm();
    for (const m of queuedMarks) write(m);
    queuedMarks = [];
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
    const endT = now();
    resolveEnded({
      samples: times.length,
      peakHeapBytes: peakHeap,
      peakRssBytes: peakRss,
      hwmRssBytes: hwm,
      hwmReset,
      interval: intervalStats(times),
      sampleDurationMs: durations.length > 0 ? distribution(durations) : null,
      missedSlots: missed,
      failedSamples: failed,
      durationMs: firstT === null ? 0 : endT - firstT,
      file: options.file ?? null,
      error: error ?? streamError,
    });
  };

  const goneReason = (detail: string) =>
    isAlive(pid)
      ? `inspector of pid ${pid} closed during sampling (${detail})`
      : `target pid ${pid} exited during sampling`;

  // Slot k is due at slotBase + k·interval (slot 0 is the first sample, taken at once).
  const slotBase = performance.now();
  let k = 0;

  const takeSample = async () => {
    timer = null;
    if (!running) return;
    inFlight = true;
    const t = now();
    const [rss, heap] = await Promise.allSettled([readRss(pid), inspector.getHeapUsage(callTimeoutMs)]);
    inFlight = false;
    if (rss.status === "fulfilled" && heap.status === "fulfilled") {
      const sample: Sample = { t, rss: rss.value, heapUsed: heap.value.usedSize, heapTotal: heap.value.totalSize };
      firstT ??= t;
      times.push(t);
      durations.push(now() - t);
      last = sample;
      if (peakHeap === null || sample.heapUsed > peakHeap) peakHeap = sample.heapUsed;
      if (peakRss === null || sample.rss > peakRss) peakRss = sample.rss;
      write(sample);
      if (times.length % HWM_EVERY_N_SAMPLES === 1) readHwm();
      try {
        options.onSample?.(sample);
      } catch {
        // a throwing observer must not stop the measurement
      }
    } else {
      const err = rss.status === "rejected" ? rss.reason : heap.status === "rejected" ? heap.reason : null;
      if ((rss.status === "rejected" && isGone(rss.reason)) || inspector.isClosed || !isAlive(pid)) {
        for (const m of queuedMarks) write(m);
        queuedMarks = [];
        await finish(goneReason((err as Error)?.message ?? String(err)));
        return;
      }
      failed++;
    }
    for (const m of queuedMarks) write(m);
    queuedMarks = [];
    if (!running) {
      await finish(null);
      return;
    }
    const elapsed = performance.now() - slotBase;
    const nextK = Math.max(k + 1, Math.ceil(elapsed / intervalMs));
    missed += nextK - (k + 1);
    k = nextK;
    timer = setTimeout(takeSample, Math.max(0, slotBase + k * intervalMs - performance.now()));
  };

  // End promptly when the inspector socket closes (target killed), even between samples.
  void inspector.closed.then((reason) => {
    if (!running || finishing) return;
    if (inFlight) return; // the sample in flight fails and ends sampling with its own reason
    void finish(goneReason(reason));
  });

  void takeSample();

  return {
    pid,
    now,
    mark(phase, extra) {
      const t = now();
      const line = { t, phase, ...extra };
      if (finishing) return t;
      if (inFlight) queuedMarks.push(line);
      else write(line);
      return t;
    },
    get last() {
      return last;
    },
    get running() {
      return running;
    },
    ended,
    stop() {
      if (running) {
        running = false;
        // With a sample in flight, takeSample finishes once it lands; otherwise finish now.
        if (!inFlight) void finish(null);
      }
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
