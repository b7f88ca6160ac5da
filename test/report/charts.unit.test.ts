// Chart data for report.html: timelines aligned on "clients connect", heap after forced GC as points,
// phase marks and peaks kept, MiB values; every trial of a cell in one chart with its median trial
// (by peak heap) named; a missing samples file is reported; latency charts carry both timers.
import { describe, expect, it } from "vitest";
import { align, latencyChart, memoryChart, memoryTimeline } from "../../scripts/report/charts.js";
import type { SampleLine } from "../../scripts/results/schema.js";
import { latencyCaseModel, memoryCellModel, trialPoint } from "../support/report-model.js";

const MIB = 1024 * 1024;
const roles = { baseline: "legacy", candidate: "batched" };
const cell = memoryCellModel({ scriptBytes: 8192, clients: 4, mode: "memory" });

describe("align", () => {
  it("sorts x and fills null where a series has no value", () => {
    const cols = new Map<number, (number | null)[]>([
      [20, [1, null]],
      [10, [null, 2]],
    ]);
    expect(align(cols, 2)).toEqual([
      [10, 20],
      [null, 1],
      [2, null],
    ]);
  });
});

describe("memoryTimeline", () => {
  it("aligns a trial on its connect phase, in MiB, with GC points, phases, peaks and heap breaks", () => {
    const legacy: SampleLine[] = [
      { t: 100, phase: "baseline", heapUsed: 30 * MIB },
      { t: 110, rss: 100 * MIB, heapUsed: 30 * MIB, heapTotal: 40 * MIB },
      { t: 120, phase: "connect" },
      { t: 130, rss: 120 * MIB, heapUsed: 50 * MIB, heapTotal: 60 * MIB },
      { t: 140, rss: 90 * MIB },
      { t: 170, heapGapMs: 20 },
      { t: 175, heapUsed: 40 * MIB, heapTotal: 60 * MIB },
      { t: 200, phase: "gc", heapUsed: 31 * MIB },
    ];
    const t = memoryTimeline(legacy, 0, 2);
    expect(t.trial).toBe(2);
    expect(t.variant).toBe(0);
    expect(t.rss).toEqual([
      [-10, 10, 20],
      [100, 120, 90],
    ]);
    // the break sits inside the stretch with no heap answer (t 150..170 -> x 40)
    expect(t.heap).toEqual([
      [-10, 10, 40, 55],
      [30, 50, null, 40],
    ]);
    expect(t.gc).toEqual([
      [-20, 30],
      [80, 31],
    ]);
    expect(t.phases).toEqual([
      { t: -20, phase: "baseline" },
      { t: 0, phase: "connect" },
      { t: 80, phase: "gc" },
    ]);
    expect(t.peakHeap).toEqual([10, 50]);
    expect(t.peakRss).toEqual([10, 120]);
  });
});

describe("memoryChart", () => {
  const trial = (peakMib: number): SampleLine[] => [
    { t: 0, phase: "connect" },
    { t: 10, rss: 2 * peakMib * MIB, heapUsed: peakMib * MIB, heapTotal: 2 * peakMib * MIB },
  ];

  it("holds every trial of both variants and bolds the trial with the median peak heap", () => {
    const c = memoryChart(
      cell,
      roles,
      [
        [
          { trial: 1, lines: trial(90) },
          { trial: 2, lines: trial(70) },
          { trial: 3, lines: trial(80) },
        ],
        [
          { trial: 1, lines: trial(10) },
          { trial: 2, lines: trial(30) },
          { trial: 3, lines: trial(20) },
        ],
      ],
      3,
    );
    expect(c.id).toBe("memory-3");
    expect(c.title).toMatch(/^8 KiB scripts, 4 subscriptions, memory:/);
    expect(c.trials).toEqual([1, 2, 3]);
    expect(c.timelines.map((t) => [t.variant, t.trial])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 1],
      [1, 2],
      [1, 3],
    ]);
    expect(c.medianTrial).toEqual([3, 3]);
    expect(c.missing).toEqual([]);
  });

  it("takes the lower middle of an even count, and names a trial whose samples are missing", () => {
    const c = memoryChart(
      cell,
      roles,
      [
        [
          { trial: 1, lines: trial(50) },
          { trial: 2, lines: trial(40) },
        ],
        [
          { trial: 1, lines: null },
          { trial: 2, lines: trial(5) },
        ],
      ],
      0,
    );
    expect(c.medianTrial).toEqual([2, 2]);
    expect(c.missing).toEqual(["batched trial 1: no samples"]);
  });

  it("names the variant with no samples at all and still charts the other", () => {
    const c = memoryChart(cell, roles, [[{ trial: 1, lines: trial(1) }], []], 0);
    expect(c.missing).toEqual(["batched: no samples"]);
    expect(c.medianTrial).toEqual([1, null]);
    expect(c.timelines).toHaveLength(1);
  });
});

describe("latencyChart", () => {
  it("plots both timers per trial with their medians", () => {
    const k = latencyCaseModel({
      label: "snapshot",
      points: {
        baseline: [
          trialPoint(1, { completionMs: 150, acknowledgedMs: 250 }),
          trialPoint(2, { completionMs: null, acknowledgedMs: null }),
        ],
        candidate: [
          trialPoint(1, { completionMs: 50, acknowledgedMs: 150 }),
          trialPoint(2, { completionMs: 60, acknowledgedMs: 160 }),
        ],
      },
      medians: {
        completionMs: { baseline: 150, candidate: 55 },
        acknowledgedMs: { baseline: 250, candidate: 155 },
      },
    });
    const c = latencyChart(k, roles, 0);
    // The timers the metric table charts, named by their headers and drawn in its styles.
    expect(c.title).toBe("snapshot: marker received and acknowledged, per trial (ms)");
    expect(c.timers).toEqual([
      { name: "marker received", point: "dot", median: "dash" },
      { name: "acknowledged", point: "ring", median: "dotted" },
    ]);
    expect(c.data).toEqual([
      [1, 2],
      [150, null],
      [50, 60],
      [250, null],
      [150, 160],
      [150, 150],
      [55, 55],
      [250, 250],
      [155, 155],
    ]);
  });
});
