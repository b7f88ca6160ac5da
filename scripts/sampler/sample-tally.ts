// What the sampler's summary is made of, gathered as samples come: counts, peaks, achieved
// intervals, heap gaps, the kernel's peak RSS. Pure apart from the VmHWM read.

import type { RssSplit } from "../results/rss-split-record.js";
import type { IntervalStats } from "../results/schema.js";
import { distribution, intervalStats } from "./interval-stats.js";
import type { ProcessStatsSource } from "./process-stats.js";
import { readVmHwm } from "./procfs.js";
import type { RssLaneScheduling } from "./rss-lane.js";
import { rssSplitTracker, splitPoint } from "./rss-split-peaks.js";

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
  /** Where RSS and CPU time were read: "proc" (Linux's /proc) or "ps" (pidusage's ps mode, process-stats.ts). */
  rssSource: ProcessStatsSource;
  /** The intervals the lanes were set to (ms): the RSS lane's is coarser than asked through ps (laneIntervalFor). */
  intervalMs: number;
  heapIntervalMs: number;
  /** From the start of sampling to its end (ms). */
  durationMs: number;
  file: string | null;
  /** The RSS split over the heap lane's ticks (results/rss-split-record.ts); null when not read. */
  rssSplit: RssSplit | null;
  /** Why sampling ended early (target exited, inspector closed), or null after a clean stop(). */
  error: string | null;
}

type SummaryRest = Pick<
  SamplerSummary,
  | "hwmReset"
  | "failedHeapReads"
  | "targetCpuMs"
  | "rssLaneScheduling"
  | "rssSource"
  | "intervalMs"
  | "heapIntervalMs"
  | "durationMs"
  | "file"
  | "error"
>;

export function createSampleTally(pid: number, gapThresholdMs: number) {
  const rssTimes: number[] = [];
  const rssReads: number[] = [];
  const heapTimes: number[] = [];
  const heapWaits: number[] = [];
  const split = rssSplitTracker();
  let peakHeap: number | null = null;
  let peakRss: number | null = null;
  let hwm: number | null = null;
  let heapGapMax = 0;
  let heapGaps = 0;
  let missedSlots = 0;
  return {
    lastRss: null as RssSample | null,
    lastHeap: null as HeapSample | null,
    rss(sample: RssSample, readMs: number) {
      rssTimes.push(sample.t);
      rssReads.push(readMs);
      this.lastRss = sample;
      if (peakRss === null || sample.rss > peakRss) peakRss = sample.rss;
    },
    /** The RSS lane's count of skipped slots: cumulative, and a batch made up after a crash says 0. */
    missed(count: number) {
      missedSlots = Math.max(missedSlots, count);
    },
    heap(sample: HeapSample, splitReading: Parameters<typeof splitPoint>[1] | null) {
      if (splitReading) split.add(splitPoint(sample.t, splitReading));
      heapTimes.push(sample.t);
      heapWaits.push(sample.t - sample.asked);
      this.lastHeap = sample;
      if (peakHeap === null || sample.heapUsed > peakHeap) peakHeap = sample.heapUsed;
    },
    /** Closes the stretch without a heap answer from `since` to t; returns it when it counts as a gap. */
    stretch(since: number, t: number): number | null {
      const gap = t - since;
      if (gap > heapGapMax) heapGapMax = gap;
      if (gap <= gapThresholdMs) return null;
      heapGaps++;
      return gap;
    },
    readHwm() {
      try {
        hwm = readVmHwm(pid) ?? hwm;
      } catch {
        // gone: keep the last value read
      }
    },
    /** The summary: these figures, in the order results keep them, with the sampler's settings and end. */
    summary(o: SummaryRest & { withHeap: boolean }): SamplerSummary {
      return {
        rssSamples: rssTimes.length,
        heapSamples: heapTimes.length,
        peakHeapBytes: peakHeap,
        peakRssBytes: peakRss,
        hwmRssBytes: hwm,
        hwmReset: o.hwmReset,
        interval: intervalStats(rssTimes),
        heapInterval: intervalStats(heapTimes),
        heapGapMaxMs: o.withHeap ? heapGapMax : null,
        heapGaps,
        rssReadMs: rssReads.length > 0 ? distribution(rssReads) : null,
        heapWaitMs: heapWaits.length > 0 ? distribution(heapWaits) : null,
        missedSlots,
        failedHeapReads: o.failedHeapReads,
        targetCpuMs: o.targetCpuMs,
        rssLaneScheduling: o.rssLaneScheduling,
        rssSource: o.rssSource,
        intervalMs: o.intervalMs,
        heapIntervalMs: o.heapIntervalMs,
        durationMs: o.durationMs,
        file: o.file,
        rssSplit: split.summary(),
        error: o.error,
      };
    },
  };
}
