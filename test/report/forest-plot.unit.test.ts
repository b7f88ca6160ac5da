// The forest plot's rows and axis (pure): every judged cell of every metric, grouped in the metric
// table's order; each row's practical floor is the verdict's own (relative, or absolute over the
// cell's baseline median, whichever is wider); the axis spans the data, always 1.0, and a floor wider
// than the data is left out rather than squeezing every row.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { forestDomain, forestGroups, forestSvg, forestTicks } from "../../scripts/report/forest-plot.js";
import { escapeHtml } from "../../scripts/report/markup.js";
import { buildModel } from "../../scripts/report/model.js";
import { defaultRun } from "./synthetic-run.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-forest-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const model = buildModel(defaultRun(dir, { aa: true }));

describe("the forest plot's rows", () => {
  it("has one row per judged cell, grouped by metric in the metric table's order", () => {
    const groups = forestGroups(model);
    expect(groups.map((g) => g.metric)).toEqual(model.metrics.map((m) => m.metric));
    expect(groups.flatMap((g) => g.rows).length).toBe(model.metrics.reduce((n, m) => n + m.cells.length, 0));
    expect(groups[0]?.title).toBe("completionMs: marker received: completion time (latency cases)");
  });

  it("takes each row's floor from the verdict's rule: the wider of 1% and 1 ms or 1 MiB over the baseline", () => {
    const rows = forestGroups(model).flatMap((g) => g.rows);
    const snapshot = rows.find((r) => r.metric === "completionMs" && r.cell === "snapshot");
    // A baseline of about 268 ms: 1 ms is 0.4%, so the relative 1% decides.
    expect(snapshot?.floor?.low).toBeCloseTo(0.99, 6);
    expect(snapshot?.floor?.high).toBeCloseTo(1.01, 6);
    // Retained heap of about 0.4 MiB: the absolute 1 MiB is more than twice the baseline.
    const retained = rows.find((r) => r.metric === "retainedHeapBytes");
    expect(retained?.floor?.high).toBeGreaterThan(3);
  });
});

describe("the forest plot's axis", () => {
  it("spans the data and 1.0, leaves out a floor wider than that, and spaces its ticks", () => {
    const groups = forestGroups(model);
    const domain = forestDomain(groups);
    expect(domain.low).toBeLessThan(0.6); // resume-one is about 0.36 × the baseline
    expect(domain.high).toBeLessThan(3); // no retained-heap floor at 3+
    const x = (v: number) => Math.log(v) * 300;
    const ticks = forestTicks(domain, x);
    expect(ticks).toContain(1);
    for (let i = 1; i < ticks.length; i++)
      expect(x(ticks[i] as number) - x(ticks[i - 1] as number)).toBeGreaterThanOrEqual(44);
    const svg = forestSvg(groups, escapeHtml);
    const retainedRows = svg.split('<g class="forest-row" data-metric="retainedHeapBytes"').slice(1);
    expect(retainedRows.length).toBeGreaterThan(0);
    for (const row of retainedRows) expect(row.slice(0, row.indexOf("</g>"))).not.toContain('class="floor"');
  });
});
