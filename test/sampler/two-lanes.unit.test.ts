// What the two lanes leave behind: a memory row records both lanes' cadence, sample counts, the
// longest heap gap and the target's CPU; the report's timeline draws a heap gap as a break (never a
// line across it) while RSS, from its own lane, keeps its points.
import { describe, expect, it } from "vitest";
import { emptyRow, memoryRow } from "../../scripts/bench/memory/memory.js";
import type { MemoryTrial } from "../../scripts/bench/rounds/plan.js";
import { memoryTimeline } from "../../scripts/report/charts.js";
import type { SampleLine, SessionFigures } from "../../scripts/results/schema.js";
import type { SamplerSummary } from "../../scripts/sampler/sampler.js";

const MIB = 1024 * 1024;
const trial: MemoryTrial = {
  kind: "memory",
  scriptBytes: 1024,
  clients: 1,
  mode: "memory",
  variant: "legacy",
  trial: 1,
};

const summary: SamplerSummary = {
  rssSamples: 120,
  heapSamples: 70,
  peakHeapBytes: 40 * MIB,
  peakRssBytes: 120 * MIB,
  hwmRssBytes: 121 * MIB,
  hwmReset: true,
  interval: { median: 10, p99: 11, max: 12 },
  heapInterval: { median: 10, p99: 480, max: 500 },
  heapGapMaxMs: 500,
  heapGaps: 1,
  rssReadMs: { median: 0.05, p99: 0.1, max: 0.2 },
  heapWaitMs: { median: 0.5, p99: 490, max: 495 },
  missedSlots: 0,
  failedHeapReads: 0,
  targetCpuMs: 730,
  rssLaneScheduling: "normal",
  rssSource: "proc",
  intervalMs: 10,
  heapIntervalMs: 10,
  durationMs: 1200,
  file: null,
  rssSplit: null,
  error: null,
};

const session: SessionFigures = {
  ok: true,
  completionMs: 100,
  firstChunkMs: 50,
  chunks: 2,
  values: 3,
  bytes: 1000,
  probeMs: 4,
  error: null,
};

describe("memory row", () => {
  it("records both lanes, their sample counts, the longest heap gap and the target's CPU", () => {
    const row = memoryRow(trial, "samples/x.jsonl", [session], 30 * MIB, 31 * MIB, summary, null);
    expect(row.ok).toBe(true);
    expect(row.sampleIntervalMs).toEqual(summary.interval); // the RSS lane's cadence
    expect(row.heapIntervalMs).toEqual(summary.heapInterval);
    expect(row.rssSamples).toBe(120);
    expect(row.heapSamples).toBe(70);
    expect(row.heapGapMaxMs).toBe(500);
    expect(row.targetCpuMs).toBe(730);
    expect(row.peakRssBytes).toBe(120 * MIB);
    expect(row.hwmRssBytes).toBe(121 * MIB);
  });

  it("has every lane field, as null, in a row with nothing measured", () => {
    const row = emptyRow(trial, null, "no target");
    for (const k of [
      "sampleIntervalMs",
      "heapIntervalMs",
      "rssSamples",
      "heapSamples",
      "heapGapMaxMs",
      "targetCpuMs",
    ]) {
      expect(row, k).toHaveProperty(k, null);
    }
  });
});

describe("memory timeline", () => {
  it("breaks the heap line over a stretch with no heap answer and keeps the RSS points inside it", () => {
    const lines: SampleLine[] = [
      { t: 0, phase: "connect" },
      { t: 10, rss: 100 * MIB },
      { t: 10.5, heapUsed: 30 * MIB, heapTotal: 40 * MIB },
      { t: 20, rss: 101 * MIB },
      { t: 30, rss: 150 * MIB }, // inside the block: RSS keeps arriving
      { t: 40, rss: 160 * MIB },
      { t: 50, rss: 120 * MIB },
      { t: 60.5, heapGapMs: 50 }, // no heap answer from 10.5 to 60.5
      { t: 60.5, heapUsed: 35 * MIB, heapTotal: 40 * MIB },
      { t: 70, rss: 118 * MIB },
    ];
    const t = memoryTimeline(lines, 0, 1);
    // RSS points at their own times, including those inside the heap gap.
    expect(t.rss[0]).toEqual([10, 20, 30, 40, 50, 70]);
    expect(t.rss[1][t.rss[0].indexOf(40)]).toBe(160);
    // Heap values only where the inspector answered, and one break (a null) strictly inside the gap.
    const [x, heap] = t.heap;
    expect(x.filter((_, i) => heap[i] !== null)).toEqual([10.5, 60.5]);
    const breaks = x.filter((_, i) => heap[i] === null);
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toBeGreaterThan(10.5);
    expect(breaks[0]).toBeLessThan(60.5);
  });

  it("draws older one-line samples (RSS and heap together) as before, without breaks", () => {
    const lines: SampleLine[] = [
      { t: 0, phase: "connect" },
      { t: 10, rss: 100 * MIB, heapUsed: 30 * MIB, heapTotal: 40 * MIB },
      { t: 20, rss: 110 * MIB, heapUsed: 32 * MIB, heapTotal: 40 * MIB },
    ];
    const t = memoryTimeline(lines, 0, 1);
    expect(t.heap).toEqual([
      [10, 20],
      [30, 32],
    ]);
    expect(t.rss).toEqual([
      [10, 20],
      [100, 110],
    ]);
  });
});
