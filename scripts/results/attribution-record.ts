// --attribute: allocation sites from V8's sampling heap profiler, on extra unmeasured trials (one per
// memory cell, variant and kind). "peak": the live sampled profile taken when the heap lane saw its
// maximum; "total": everything allocated over the window, objects collected by GC included. Only
// allocations made after sampling started are in a profile: the server's resting heap is not.

/** One stack frame as the target reports it (lines 1-based here; CDP's are 0-based). */
export interface SiteFrame {
  functionName: string;
  url: string;
  line: number;
}

/** An allocation site: the allocating frame and the frame that called it, with the sampled bytes. */
export interface HeapSite {
  frame: SiteFrame;
  caller: SiteFrame | null;
  bytes: number;
}

export type AttributionKind = "peak" | "total";

export interface AttributionRow {
  scriptBytes: number;
  clients: number;
  mode: string;
  variant: string;
  kind: AttributionKind;
  ok: boolean;
  /** The profiling trial's own peaks (bytes), to set against the measured trials' medians. */
  peakHeapBytes: number | null;
  peakRssBytes: number | null;
  /** Sum of the profile's sampled bytes. */
  sampledBytes: number | null;
  /** The largest sites, by bytes. */
  sites: HeapSite[];
  /**
   * "peak": the profile was taken on the heap tick with the trial's highest heap; "closest": on an
   * earlier tick (requests are rate-limited, one in flight), heapAtProfileBytes says how close;
   * "end": taken after the clients closed ("total", or a trial where no request was answered first).
   */
  taken: "peak" | "closest" | "end";
  /** Heap used at the tick the profile was asked on (bytes). */
  heapAtProfileBytes: number | null;
  /** getSamplingProfile requests made during the trial. */
  profileRequests: number;
  /** Relative to the run directory: the raw profile (Chrome DevTools, speedscope). */
  profileFile: string | null;
  error: string | null;
}

export interface AttributionInfo {
  /** HeapProfiler.startSampling's samplingInterval (bytes, on average between samples). */
  intervalBytes: number;
  rows: AttributionRow[];
}
