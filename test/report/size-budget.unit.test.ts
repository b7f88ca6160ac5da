// report.md's size budget: it fits one GitHub comment (65,536 characters). The widest report a run can
// make (64 cells, the A/A band, guard lines) is measured and its headroom printed; past the limit it
// fails saying by how much. Shortening follows SHORTENING's declared order (verdict reasons, columns
// outside the headline, verdict tables outside the headline), each step saying what it left out;
// past the last step, and past 64 cells, the details go to report.html and report.md says so.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMENT_LIMIT, fitMarkdown, MAX_DETAIL_CELLS, SHORTENING } from "../../scripts/report/markdown.js";
import { buildModel, type ReportModel } from "../../scripts/report/model.js";
import { markdownTables, tableUnder } from "../support/table.js";
import { defaultRun, withClients } from "./synthetic-run.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The widest details a run has: the A/A band, the guard and its lines; 4 cases + 4 × `clients` memory cells. */
function wideModel(clients: number): ReportModel {
  const dir = mkdtempSync(join(tmpdir(), "catchup-budget-"));
  dirs.push(dir);
  const base = defaultRun(dir, { aa: true, guard: { ceiling: 1.03, metrics: ["completionMs", "peakHeapBytes"] } });
  return buildModel(withClients(base, clients), { guardLines: Array(64).fill("x".repeat(150)) });
}

/** The line that says what report.md left out, or null. */
const droppedLine = (md: string) => md.split("\n").find((l) => l.startsWith("To fit one comment:")) ?? null;

describe("report.md's size budget", () => {
  it("fits the widest report in one comment, and says how much room is left", () => {
    // 4 latency cases + 2 sizes x 2 modes x 15 clients = 64 cells: the most that keeps the details.
    const model = wideModel(15);
    expect(model.latency.length + model.memory.length).toBe(MAX_DETAIL_CELLS);
    const { markdown, steps } = fitMarkdown(model);
    const headroom = COMMENT_LIMIT - markdown.length;
    console.log(`widest report.md: ${markdown.length} characters, headroom ${headroom}, shortening steps ${steps}`);
    if (headroom < 0) expect.fail(`report.md is over GitHub's comment limit by ${-headroom} characters`);
    expect(steps).not.toBeNull();
  });

  it("shortens step by step in the declared order, each step saying what it left out", () => {
    const model = wideModel(15);
    const whole = fitMarkdown(model, Number.POSITIVE_INFINITY);
    expect(whole.steps).toBe(0);
    expect(droppedLine(whole.markdown)).toBeNull();
    let limit = whole.markdown.length;
    const fitted: string[] = [];
    for (let step = 1; step <= SHORTENING.length; step++) {
      // One character less than the last fit: the next step must be taken, and it must fit.
      const next = fitMarkdown(model, limit - 1);
      expect(next.steps, `step ${step}: ${SHORTENING[step - 1]}`).toBe(step);
      fitted.push(next.markdown);
      limit = next.markdown.length;
    }
    const [reasons, columns, tables] = fitted as [string, string, string];
    // Step 1: verdicts without their reasons, the tables outside the compact form gone.
    expect(droppedLine(reasons)).toBe(
      "To fit one comment: verdicts without their reasons; no per-cell tables for hwmRssBytes, retainedHeapBytes (report.html and results.json have them).",
    );
    expect(tableUnder(reasons, "### completionMs").rows.every((r) => !r.verdict?.includes("("))).toBe(true);
    expect(reasons).not.toContain("### hwmRssBytes");
    expect(tableUnder(reasons, "## Memory", "cell").header).toContain("VmHWM");
    // Step 2: the columns outside the headline too.
    expect(droppedLine(columns)).toContain(
      "no columns outside the headline (VmHWM, retained heap, through completion, target CPU (ms))",
    );
    expect(tableUnder(columns, "## Memory", "cell").header).toEqual(["cell", "peak heap", "peak RSS", "post-GC heap"]);
    expect(columns).toContain("### probeMaxMs");
    // Step 3: the verdict tables outside the headline too; the headline's stay.
    expect(droppedLine(tables)).toContain("no per-cell tables for firstChunkMs, probeMs, probeMaxMs either");
    const titles = tables.split("\n").filter((l) => l.startsWith("### "));
    expect(titles.map((t) => t.split(":")[0])).toEqual([
      "### completionMs",
      "### acknowledgedMs",
      "### peakHeapBytes",
      "### peakRssBytes",
      "### postGcHeapBytes",
    ]);
    // Past the last step: the details go to report.html.
    const none = fitMarkdown(model, limit - 1);
    expect(none.steps).toBeNull();
    expect(none.markdown).not.toContain("<details>");
    expect(none.markdown).toMatch(/are in report\.html: with details of [\d,]+ characters they would not fit/);
  });

  it("sends the details of more than 64 cells to report.html, keeping the summary's tables", () => {
    const model = wideModel(16);
    const { markdown, steps } = fitMarkdown(model);
    expect(steps).toBeNull();
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(markdown).not.toContain("<details>");
    expect(markdown).toContain(
      "The details (every figure, per-cell verdicts, probe, sampler health, environment) are in report.html: with 68 cells (more than 64)",
    );
    expect(markdownTables(markdown)).toHaveLength(2);
  });
});
