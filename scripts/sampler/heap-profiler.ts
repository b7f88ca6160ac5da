// V8's sampling heap profiler through the sampler's inspector session, for --attribute's unmeasured
// trials. "peak": the live sampled profile is asked each time the heap lane sees a new maximum, at
// most one request in flight and one every minGapMs (a request makes the target walk its sampled
// allocations, so asking on every tick would change what it measures); the last profile taken at a
// maximum is kept. "total": objects collected by GC stay in the profile (V8's
// includeObjectsCollectedBy{Major,Minor}GC), which is asked once, after the clients closed.

import type { SamplingHeapProfile } from "./heap-sites.js";
import type { InspectorClient } from "./inspector.js";

export interface ProfileCapture {
  profile: SamplingHeapProfile;
  taken: "peak" | "closest" | "end";
  heapAtProfileBytes: number | null;
  requests: number;
}

export interface HeapProfiling {
  /** Feed every heap-lane reading (heap used, bytes). */
  onHeap(heapUsed: number): void;
  /** Takes the final profile if needed, stops sampling, and returns the capture. */
  finish(): Promise<ProfileCapture>;
}

export interface HeapProfilingOptions {
  kind: "peak" | "total";
  /** Average bytes between samples (HeapProfiler.startSampling's samplingInterval). */
  intervalBytes: number;
  /** Least time between two profile requests (ms). Default 250. */
  minGapMs?: number;
  /** Timeout of one request (ms). Default 30,000: a large profile of a busy target answers late. */
  timeoutMs?: number;
}

export async function startHeapProfiling(inspector: InspectorClient, o: HeapProfilingOptions): Promise<HeapProfiling> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const minGapMs = o.minGapMs ?? 250;
  const total = o.kind === "total";
  await inspector.send(
    "HeapProfiler.startSampling",
    {
      samplingInterval: o.intervalBytes,
      ...(total ? { includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } : {}),
    },
    timeoutMs,
  );
  let max = Number.NEGATIVE_INFINITY;
  let best: { profile: SamplingHeapProfile; heap: number } | null = null;
  let inFlight: Promise<void> | null = null;
  let lastAsk = Number.NEGATIVE_INFINITY;
  let wanted = false;
  let requests = 0;
  let failed: string | null = null;
  let retry: NodeJS.Timeout | null = null;

  const ask = () => {
    if (inFlight || failed) return;
    const wait = lastAsk + minGapMs - performance.now();
    if (wait > 0) {
      // Rate-limited: ask once the gap has passed, for the maximum seen by then.
      retry ??= setTimeout(() => {
        retry = null;
        if (wanted) ask();
      }, wait);
      return;
    }
    wanted = false;
    lastAsk = performance.now();
    const heap = max;
    requests++;
    inFlight = inspector
      .send<{ profile: SamplingHeapProfile }>("HeapProfiler.getSamplingProfile", {}, timeoutMs)
      .then(
        (r) => {
          // A later, higher maximum may have been seen meanwhile: this profile is for the one asked on.
          if (!best || heap >= best.heap) best = { profile: r.profile, heap };
        },
        (e: Error) => {
          failed = e.message;
        },
      )
      .finally(() => {
        inFlight = null;
        if (wanted) ask();
      });
  };

  return {
    onHeap(heapUsed) {
      if (total || heapUsed <= max) return;
      max = heapUsed;
      wanted = true;
      ask();
    },
    async finish() {
      if (retry) clearTimeout(retry);
      wanted = false;
      await inFlight;
      let capture: ProfileCapture;
      const kept = best as { profile: SamplingHeapProfile; heap: number } | null;
      if (!total && kept) {
        capture = {
          profile: kept.profile,
          taken: kept.heap >= max ? "peak" : "closest",
          heapAtProfileBytes: kept.heap,
          requests,
        };
      } else {
        requests++;
        const r = await inspector.send<{ profile: SamplingHeapProfile }>(
          "HeapProfiler.getSamplingProfile",
          {},
          timeoutMs,
        );
        capture = { profile: r.profile, taken: "end", heapAtProfileBytes: null, requests };
      }
      await inspector.send("HeapProfiler.stopSampling", {}, timeoutMs);
      return capture;
    },
  };
}
