// The sampler against real node targets: plausible samples in both lanes, phase marks in order, the
// kernel's peak beside the sampled one, post-GC heap, and a clean end (never a hang) when the target dies.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { SampleLine } from "../../scripts/results/schema.js";
import type { InspectorClient } from "../../scripts/sampler/inspector.js";
import { readVmHwm, readVmRss, rssCounterSlackBytes } from "../../scripts/sampler/procfs.js";
import { type HeapSample, postGcHeap, type RssSample, startSampler } from "../../scripts/sampler/sampler.js";
import { inspectedProbe, keepSampler, stopAll, until, withTimeout } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "sampler-test-"));
afterEach(stopAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves once n RSS samples have been taken (the sampler's onRss hook), or rejects after 15 s. */
function sampleCounter(): { onRss: (s: RssSample) => void; count: () => number; reach: (n: number) => Promise<void> } {
  let count = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    onRss: () => {
      count++;
      for (const w of waiters.filter((w) => count >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    },
    count: () => count,
    reach: (n) =>
      withTimeout(
        new Promise<void>((resolve) => {
          if (count >= n) resolve();
          else waiters.push({ n, resolve });
        }),
        15_000,
        `${n} samples`,
      ),
  };
}

/**
 * Instrumentation around the real inspector client (not a double: every call still goes to the target):
 * next() resolves when the sampler issues its next Runtime.getHeapUsage.
 */
function heapCallWatcher(real: InspectorClient): { client: InspectorClient; next: () => Promise<void> } {
  let waiter: (() => void) | null = null;
  const client = Object.create(real) as InspectorClient;
  // The heap lane asks through evaluate (process.memoryUsage(), with the RSS split) or getHeapUsage.
  for (const method of ["getHeapUsage", "evaluate"] as const) {
    Object.defineProperty(client, method, {
      value: (...args: unknown[]) => {
        const p = (real[method] as (...a: unknown[]) => Promise<unknown>)(...args);
        const w = waiter;
        waiter = null;
        w?.();
        return p;
      },
    });
  }
  return {
    client,
    next: () =>
      withTimeout(
        new Promise<void>((resolve) => {
          waiter = resolve;
        }),
        10_000,
        "next heap request",
      ),
  };
}

function readLines(file: string): SampleLine[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as SampleLine);
}

describe("startSampler", () => {
  it("takes plausible samples of a real target in both lanes and writes them to the file", async () => {
    const { t, c } = await inspectedProbe();
    const counter = sampleCounter();
    const heap: HeapSample[] = [];
    const file = join(dir, "plain", "samples.jsonl");
    const s = await startSampler({
      pid: t.pid,
      inspector: c,
      intervalMs: 10,
      file,
      onRss: counter.onRss,
      onHeap: (h) => heap.push(h),
    });
    keepSampler(s);
    await counter.reach(10);
    await until(() => heap.length >= 3, 15_000, "3 heap samples");
    const summary = await s.stop();
    expect(summary.error).toBeNull();
    expect(summary.rssSamples).toBeGreaterThanOrEqual(10);
    expect(summary.heapSamples).toBeGreaterThanOrEqual(3);
    const lines = readLines(file);
    const rss = lines.filter((l): l is RssSample & SampleLine => "rss" in l);
    const heaps = lines.filter((l): l is HeapSample & SampleLine => "heapUsed" in l);
    expect(rss.length).toBe(summary.rssSamples);
    expect(heaps.length).toBe(summary.heapSamples);
    for (const x of heaps) {
      expect(x.heapUsed).toBeGreaterThan(1024 * 1024);
      expect(x.heapTotal).toBeGreaterThanOrEqual(x.heapUsed);
    }
    // RSS holds the heap plus code, stacks, buffers.
    for (const x of rss) expect(x.rss).toBeGreaterThan(Math.max(...heaps.map((h) => h.heapUsed)));
    for (let i = 1; i < rss.length; i++) expect((rss[i] as RssSample).t).toBeGreaterThan((rss[i - 1] as RssSample).t);
    expect(summary.peakHeapBytes).toBe(Math.max(...heaps.map((x) => x.heapUsed)));
    expect(summary.peakRssBytes).toBe(Math.max(...rss.map((x) => x.rss)));
    for (const iv of [summary.interval, summary.heapInterval]) {
      expect(iv?.median).toBeGreaterThan(0);
      expect(iv?.max).toBeGreaterThanOrEqual(iv?.p99 ?? Number.POSITIVE_INFINITY);
    }
    // Stop is idempotent and the same summary comes back.
    expect(await s.stop()).toEqual(summary);
    expect(s.running).toBe(false);
  });

  it("writes phase marks in the order made, interleaved with samples by time", async () => {
    const { t, c } = await inspectedProbe();
    const rss: RssSample[] = [];
    const file = join(dir, "phases.jsonl");
    const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 5, file, onRss: (x) => rss.push(x) });
    keepSampler(s);
    const phases = ["connect", "first-chunk", "completion", "hold-end", "close", "gc"];
    let markT = Number.NEGATIVE_INFINITY;
    // Each mark once RSS readings taken after the previous one have arrived (they come in batches).
    for (const [i, phase] of phases.entries()) {
      await until(() => rss.filter((x) => x.t > markT).length >= 2, 15_000, `readings before ${phase}`);
      markT = s.mark(phase, i === 5 ? { heapUsed: 123 } : undefined);
    }
    await until(() => rss.some((x) => x.t > markT), 15_000, "a reading after the last mark");
    await s.stop();
    const lines = readLines(file);
    const marks = lines.filter((l): l is Extract<SampleLine, { phase: string }> => "phase" in l);
    expect(marks.map((m) => m.phase)).toEqual(phases);
    expect(marks.at(-1)?.heapUsed).toBe(123);
    for (let i = 1; i < lines.length; i++)
      expect((lines[i] as SampleLine).t).toBeGreaterThanOrEqual((lines[i - 1] as SampleLine).t);
    // Samples both before the first mark and after the last (heap answers may come after the last
    // RSS reading: the RSS lane reports in batches, so the file need not end with one).
    expect("rss" in (lines[0] as SampleLine)).toBe(true);
    expect(lines.slice(lines.indexOf(marks.at(-1) as SampleLine)).some((l) => "rss" in l)).toBe(true);
  });

  it("keeps VmHWM at or above the sampled peak RSS (within the kernel's counter slack), both covering a touched 256 MiB buffer", async () => {
    const { t, c } = await inspectedProbe();
    const counter = sampleCounter();
    const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 10, onRss: counter.onRss });
    keepSampler(s);
    await counter.reach(2);
    const baseline = s.lastRss?.rss as number;
    await t.command(`alloc ${256 * 1024 * 1024}`);
    await t.nextLine(); // {"done":"alloc"}
    await counter.reach(counter.count() + 3); // samples taken after the buffer is resident
    const summary = await s.stop();
    const hwm = readVmHwm(t.pid) as number;
    // 250 not 256: a GC during the allocation may hand back a little of the baseline.
    expect(summary.peakRssBytes).toBeGreaterThanOrEqual(baseline + 250 * 1024 * 1024);
    const slack = rssCounterSlackBytes(); // a statm reading can top VmHWM by the kernel counters' slack
    expect(summary.hwmRssBytes).toBeGreaterThanOrEqual((summary.peakRssBytes as number) - slack);
    expect(hwm).toBeGreaterThanOrEqual((summary.peakRssBytes as number) - slack);
  });

  it("resets VmHWM at start by default, so the kernel's peak covers the sampling window only", async () => {
    const { t, c } = await inspectedProbe();
    await t.command(`alloc ${128 * 1024 * 1024}`);
    await t.nextLine(); // {"done":"alloc"}
    await t.command("free");
    await postGcHeap(c); // frees the unreferenced buffer: RSS falls, VmHWM stays high
    const hwmBefore = readVmHwm(t.pid) as number;
    // V8 releases the buffer's memory on a background thread after the GC.
    await until(() => hwmBefore - (readVmRss(t.pid) as number) > 112 * 1024 * 1024, 10_000, "buffer unmapped");

    const kept = sampleCounter();
    const s1 = await startSampler({
      pid: t.pid,
      inspector: c,
      intervalMs: 10,
      resetHwm: false,
      onRss: kept.onRss,
    });
    keepSampler(s1);
    await kept.reach(3);
    const keptSummary = await s1.stop();
    expect(keptSummary.hwmReset).toBe(false);
    expect(keptSummary.hwmRssBytes).toBeGreaterThanOrEqual(hwmBefore);

    const reset = sampleCounter();
    const s2 = await startSampler({ pid: t.pid, inspector: c, intervalMs: 10, onRss: reset.onRss });
    keepSampler(s2);
    await reset.reach(3);
    const summary = await s2.stop();
    expect(summary.hwmReset).toBe(true);
    expect(summary.hwmRssBytes).toBeLessThan(hwmBefore - 96 * 1024 * 1024);
    expect(summary.hwmRssBytes).toBeGreaterThanOrEqual((summary.peakRssBytes as number) - rssCounterSlackBytes());
  });

  it("ends with an error note, not a hang, when the target is killed mid-sampling", async () => {
    const { t, c } = await inspectedProbe();
    const counter = sampleCounter();
    const file = join(dir, "killed.jsonl");
    const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 10, file, onRss: counter.onRss });
    keepSampler(s);
    await counter.reach(5);
    s.mark("connect");
    t.kill();
    const summary = await withTimeout(s.ended, 10_000, "sampler end after kill");
    expect(summary.error).toMatch(/^(target pid \d+ exited|inspector of pid \d+ closed) during sampling/);
    expect(summary.rssSamples).toBeGreaterThanOrEqual(5);
    expect(summary.peakRssBytes).toBeGreaterThan(0);
    expect(s.running).toBe(false);
    expect(await s.stop()).toEqual(summary);
    const lines = readLines(file);
    expect(lines.filter((l) => "rss" in l).length).toBe(summary.rssSamples);
    expect(lines.some((l) => "phase" in l && l.phase === "connect")).toBe(true);
  });

  it("ends with an error note when the target dies while a sample is in flight", async () => {
    const { t, c } = await inspectedProbe();
    const issued = heapCallWatcher(c);
    const counter = sampleCounter();
    const s = await startSampler({
      pid: t.pid,
      inspector: issued.client,
      intervalMs: 10,
      onRss: counter.onRss,
    });
    keepSampler(s);
    await counter.reach(3);
    // While Buffer.alloc fills 512 MiB in native code the target answers no inspector call, so the
    // next heap request stays in flight until the kill closes the socket.
    await t.command(`alloc ${512 * 1024 * 1024}`);
    await issued.next();
    t.kill();
    const summary = await withTimeout(s.ended, 10_000, "sampler end after kill");
    expect(summary.error).toMatch(/^(target pid \d+ exited|inspector of pid \d+ closed) during sampling/);
    expect(summary.rssSamples).toBeGreaterThanOrEqual(3);
  });

  it("keeps t ordered in the file when a mark is made while a heap request is in flight", async () => {
    const { t, c } = await inspectedProbe();
    const issued = heapCallWatcher(c);
    const counter = sampleCounter();
    const file = join(dir, "inflight-mark.jsonl");
    const s = await startSampler({
      pid: t.pid,
      inspector: issued.client,
      intervalMs: 10,
      file,
      onRss: counter.onRss,
    });
    keepSampler(s);
    await counter.reach(2);
    await t.command(`alloc ${256 * 1024 * 1024}`);
    await issued.next();
    s.mark("during-native-work"); // the heap request just issued cannot have been answered yet
    await t.nextLine(); // {"done":"alloc"}
    await counter.reach(counter.count() + 2);
    await s.stop();
    const lines = readLines(file);
    const at = lines.findIndex((l) => "phase" in l && l.phase === "during-native-work");
    expect(at).toBeGreaterThan(0);
    for (let i = 1; i < lines.length; i++)
      expect((lines[i] as SampleLine).t).toBeGreaterThanOrEqual((lines[i - 1] as SampleLine).t);
  });

  it("refuses to start on a pid that does not exist", async () => {
    const { t, c } = await inspectedProbe();
    t.kill();
    await t.waitExit();
    await expect(startSampler({ pid: t.pid, inspector: c, intervalMs: 10 })).rejects.toThrow(/cannot sample pid/);
  });
});

describe("postGcHeap", () => {
  it("returns the heap after forced GCs: retained objects count, freed ones do not", async () => {
    const { t, c } = await inspectedProbe();
    const baseline = await postGcHeap(c);
    await t.command("heap 32");
    const retained = await postGcHeap(c);
    await t.command("free");
    const afterFree = await postGcHeap(c);
    expect(retained - baseline).toBeGreaterThan(30 * 1024 * 1024);
    expect(afterFree - baseline).toBeLessThan(2 * 1024 * 1024);
  });
});
