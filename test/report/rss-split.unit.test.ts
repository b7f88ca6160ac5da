// The RSS split in the report: per cell the medians of each trial's split at its RSS-peak tick, the
// Markdown/HTML table baseline → candidate with the difference, the note on negative remainders, and
// the stacked-area data whose top edge is the tick's RSS, broken at a heap gap.
import { describe, expect, it } from "vitest";
import type { MemoryCellModel } from "../../scripts/report/model.js";
import { rssSplitChart } from "../../scripts/report/rss-split-chart.js";
import { componentOf, splitAtPeak, splitCells, splitNote } from "../../scripts/report/rss-split-section.js";
import type { RssSplit } from "../../scripts/results/rss-split-record.js";
import type { MemoryRow, SampleLine } from "../../scripts/results/schema.js";

const MIB = 1024 * 1024;

function split(rss: number, heapUsed: number, external: number, negative = 0): RssSplit {
  const heapTotal = heapUsed + 10 * MIB;
  const p = { rss, heapUsed, heapTotal, external, arrayBuffers: external / 2, remainder: rss - heapTotal - external };
  return {
    samples: 10,
    peak: p,
    atRssPeak: { t: 1, ...p },
    remainderMin: negative ? -MIB : MIB,
    negativeRemainders: negative,
  };
}
const row = (s: RssSplit | null, ok = true) => ({ ok, rssSplit: s }) as MemoryRow;

describe("splitAtPeak", () => {
  it("takes the median of the ok trials per component and sums the negative remainders", () => {
    const s = splitAtPeak([
      row(split(300 * MIB, 100 * MIB, 20 * MIB)),
      row(split(320 * MIB, 120 * MIB, 40 * MIB, 2)),
      row(split(310 * MIB, 110 * MIB, 30 * MIB)),
      row(split(900 * MIB, 900 * MIB, 900 * MIB), false),
      row(null),
    ]);
    expect(s).toMatchObject({
      trials: 3,
      rss: 310 * MIB,
      heapUsed: 110 * MIB,
      external: 30 * MIB,
      negativeRemainders: 2,
    });
    expect(s?.remainderMin).toBe(-MIB);
    expect(splitAtPeak([row(null)])).toBeNull();
  });

  it("splits committed heap into used and unused, and leaves the remainder past external", () => {
    const p = split(300 * MIB, 100 * MIB, 20 * MIB).atRssPeak;
    expect(componentOf(p, "heapFree")).toBe(10 * MIB);
    expect(componentOf(p, "external")).toBe(20 * MIB);
    expect(componentOf(p, "remainder")).toBe(170 * MIB);
  });
});

describe("splitCells", () => {
  it("shows baseline → candidate with the difference per component, and no table without a split", () => {
    const b = splitAtPeak([row(split(300 * MIB, 100 * MIB, 20 * MIB))]);
    const c = splitAtPeak([row(split(350 * MIB, 90 * MIB, 116 * MIB))]);
    const t = splitCells([{ name: "8 KiB × 4, resume", baseline: b, candidate: c }], false);
    expect(t?.header).toContain("external");
    expect(t?.rows[0]).toContain("300.0 → 350.0 (+50.0)");
    expect(t?.rows[0]).toContain("100.0 → 90.0 (−10.0)");
    expect(t?.rows[0]).toContain("20.0 → 116.0 (+96.0)");
    expect(splitCells([{ name: "x", baseline: null, candidate: null }], false)).toBeNull();
    expect(splitNote([{ name: "x", baseline: b, candidate: c }])).toMatch(/≥ 0 in every tick/);
    const neg = splitAtPeak([row(split(300 * MIB, 100 * MIB, 20 * MIB, 3))]);
    expect(splitNote([{ name: "x", baseline: neg, candidate: c }])).toMatch(/below 0 in 3 ticks/);
  });
});

describe("rssSplitChart", () => {
  it("stacks the components bottom up to the tick's RSS, on the connect axis, broken at a heap gap", () => {
    const lines: SampleLine[] = [
      { t: 100, phase: "connect" },
      { t: 110, rss: 999 * MIB },
      { t: 120, heapUsed: 50 * MIB, heapTotal: 60 * MIB, external: 8 * MIB, arrayBuffers: 6 * MIB, tickRss: 150 * MIB },
      { t: 200, heapGapMs: 60 },
      { t: 210, heapUsed: 70 * MIB, heapTotal: 80 * MIB, external: 8 * MIB, arrayBuffers: 6 * MIB, tickRss: 170 * MIB },
    ];
    const cell = { scriptBytes: 8192, clients: 4, mode: "memory" } as MemoryCellModel;
    const c = rssSplitChart(cell, "legacy", 0, 1, lines, "rss-split-0-0");
    expect(c?.data[0]).toEqual([20, 70, 110]);
    // Bottom first: heap used, + unused committed, + external, + remainder = RSS; then array buffers.
    expect(c?.data.map((col) => col[0])).toEqual([20, 50, 60, 68, 150, 6]);
    expect(c?.data.slice(1).every((col) => col[1] === null)).toBe(true);
    expect(c?.data[4]?.[2]).toBe(170);
    expect(rssSplitChart(cell, "legacy", 0, 1, [{ t: 1, heapUsed: 1, heapTotal: 2 }], "x")).toBeNull();
  });
});
