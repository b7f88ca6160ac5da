// Chart data for report.html: timelines aligned on "clients connect", both variants on one x axis,
// heap after forced GC as points, phase marks kept, MiB values; a missing samples file is reported.
import { describe, expect, it } from "vitest";
import { align, memoryChart } from "../../scripts/report/charts.js";
import type { MemoryCellModel } from "../../scripts/report/model.js";
import type { SampleLine } from "../../scripts/results/schema.js";

const MIB = 1024 * 1024;
const roles = { baseline: "legacy", candidate: "batched" };
const cell = { scriptBytes: 8192, clients: 4, mode: "memory" } as MemoryCellModel;

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

describe("memoryChart", () => {
  it("puts both variants on one axis from their own connect phase, in MiB, with GC points and phases", () => {
    const legacy: SampleLine[] = [
      { t: 100, phase: "baseline", heapUsed: 30 * MIB },
      { t: 110, rss: 100 * MIB, heapUsed: 30 * MIB, heapTotal: 40 * MIB },
      { t: 120, phase: "connect" },
      { t: 130, rss: 120 * MIB, heapUsed: 50 * MIB, heapTotal: 60 * MIB },
      { t: 200, phase: "gc", heapUsed: 31 * MIB },
    ];
    const batched: SampleLine[] = [
      { t: 5, phase: "connect" },
      { t: 15, rss: 110 * MIB, heapUsed: 45 * MIB, heapTotal: 60 * MIB },
    ];
    const c = memoryChart(cell, roles, [legacy, batched], 3);
    expect(c.id).toBe("memory-3");
    expect(c.title).toMatch(/^8 KiB scripts, 4 subscriptions, memory:/);
    expect(c.missing).toEqual([]);
    // x: -20 (baseline GC), -10, 10 (both variants), 80 (post-GC)
    expect(c.data[0]).toEqual([-20, -10, 10, 80]);
    expect(c.data[1]).toEqual([null, 30, 50, null]); // legacy heap
    expect(c.data[2]).toEqual([null, 100, 120, null]); // legacy RSS
    expect(c.data[3]).toEqual([30, null, null, 31]); // legacy heap after forced GC
    expect(c.data[4]).toEqual([null, null, 45, null]); // batched heap
    expect(c.data[5]).toEqual([null, null, 110, null]); // batched RSS
    expect(c.phases).toContainEqual({ t: 0, phase: "connect", variant: 0 });
    expect(c.phases).toContainEqual({ t: 0, phase: "connect", variant: 1 });
    expect(c.phases).toContainEqual({ t: 80, phase: "gc", variant: 0 });
  });

  it("names the variant whose samples are missing and still charts the other", () => {
    const only: SampleLine[] = [{ t: 0, rss: MIB, heapUsed: MIB, heapTotal: MIB }];
    const c = memoryChart(cell, roles, [only, null], 0);
    expect(c.missing).toEqual(["batched: no samples"]);
    expect(c.data[0]).toEqual([0]);
    expect(c.data[1]).toEqual([1]);
  });
});
