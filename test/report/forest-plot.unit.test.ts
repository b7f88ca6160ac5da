// The forest plot's rows and axis (pure): every judged cell of every metric, grouped in the metric
// table's order; each row's practical floor is its metric's own (relative, or absolute over the
// cell's baseline median, whichever is wider), none where it reaches the baseline; the axis spans the
// data, always 1.0, and a floor wider than the data is left out rather than squeezing every row.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseMinEffect } from "../../scripts/options/min-effect.js";
import {
  type ForestRow,
  forestDomain,
  forestGroups,
  forestSvg,
  forestTicks,
} from "../../scripts/report/forest-plot.js";
import { escapeHtml } from "../../scripts/report/markup.js";
import { buildModel } from "../../scripts/report/model.js";
import { defaultRun } from "./synthetic-run.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-forest-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = defaultRun(dir, { aa: true });
const model = buildModel(run);
/** The baseline's median retained heap of a memory cell (bytes). */
const retainedBaseline = (cell: string) =>
  model.memory.find((m) => `${m.scriptBytes}x${m.clients}/${m.mode}` === cell)?.medians.retainedHeapBytes.baseline ?? 0;

describe("the forest plot's rows", () => {
  it("has one row per judged cell, grouped by metric in the metric table's order", () => {
    const groups = forestGroups(model);
    expect(groups.map((g) => g.metric)).toEqual(model.metrics.map((m) => m.metric));
    expect(groups.flatMap((g) => g.rows).length).toBe(model.metrics.reduce((n, m) => n + m.cells.length, 0));
    expect(groups[0]?.title).toBe("completionMs: marker received: completion time (latency cases)");
  });

  it("takes each row's floor from its metric's rule: the wider of its parts over the baseline, none where it reaches it", () => {
    const rows = forestGroups(model).flatMap((g) => g.rows);
    const snapshot = rows.find((r) => r.metric === "completionMs" && r.cell === "snapshot");
    // A baseline of about 268 ms: 1 ms is 0.4%, so the relative 1% decides.
    expect(snapshot?.floor?.low).toBeCloseTo(0.99, 6);
    expect(snapshot?.floor?.high).toBeCloseTo(1.01, 6);
    // Retained heap of about 0.4 MiB: its absolute 64 KiB decides.
    const retained = rows.find((r) => r.metric === "retainedHeapBytes") as ForestRow;
    expect(retained.floor?.high).toBeCloseTo(1 + 65536 / retainedBaseline(retained.cell), 6);
    // A 1 MiB floor reaches that baseline: no floor drawn (the cell is not judged).
    const wide = forestGroups(buildModel(run, { minEffect: parseMinEffect("1MiB") })).flatMap((g) => g.rows);
    expect(wide.filter((r) => r.metric === "retainedHeapBytes").map((r) => r.floor)).toEqual(
      expect.arrayContaining([null]),
    );
    expect(wide.filter((r) => r.metric === "retainedHeapBytes").every((r) => r.floor === null)).toBe(true);
  });
});

describe("the forest plot's axis", () => {
  it("spans the data and 1.0, leaves out a floor wider than that, and spaces its ticks", () => {
    // Retained heap's floor at 95% of its baseline: 0.05 to 1.95, its lower line beyond the data.
    const floor = Math.round(0.95 * retainedBaseline("1024x1/memory"));
    const groups = forestGroups(buildModel(run, { minEffect: parseMinEffect(`retainedHeapBytes=${floor}B`) }));
    const domain = forestDomain(groups);
    expect(domain.low).toBeLessThan(0.6); // resume-one is about 0.36 × the baseline
    expect(domain.low).toBeGreaterThan(0.1); // not stretched to the floor at 0.05
    const x = (v: number) => Math.log(v) * 300;
    const ticks = forestTicks(domain, x);
    expect(ticks).toContain(1);
    for (let i = 1; i < ticks.length; i++)
      expect(x(ticks[i] as number) - x(ticks[i - 1] as number)).toBeGreaterThanOrEqual(44);
    const svg = forestSvg(groups, escapeHtml);
    const retainedRows = svg.split('<g class="forest-row" data-metric="retainedHeapBytes"').slice(1);
    expect(retainedRows.length).toBeGreaterThan(0);
    const cell = retainedRows.find((row) => row.startsWith(' data-cell="1024x1/memory"')) ?? "";
    expect(cell.slice(0, cell.indexOf("</g>")).match(/class="floor"/g)).toHaveLength(1);
  });
});
