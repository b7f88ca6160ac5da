// A single-target run is a first-class run: the bundled server alone (`--variants batched`) gets its
// latency, memory and probe figures in report.md and report.html, without ratio columns, no A/A copy
// and no verdict tables, and the guard never fails it for want of a candidate (exit 0).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { benchResults } from "../bench/bench-child.js";
import { rowWhere, tableUnder, valuesUnder } from "../support/table.js";

let dir: string;
let out: string;
let code: number | null;
let printed: string;
let results: Results;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catchup-single-"));
  out = join(dir, "run");
  ({ code, printed, results } = await benchResults(
    [
      "--quick",
      "--variants",
      "batched",
      "--trials",
      "2",
      "--clients",
      "1",
      "--ceiling",
      "1.03",
      "--fixtures-dir",
      join(dir, "fixtures"),
    ],
    out,
    240_000,
  ));
}, 260_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a single-target run of the bundled server", () => {
  it("exits 0: the guard is not judged for want of a candidate", () => {
    expect(code, printed).toBe(EXIT.ok);
    expect(printed).toContain("guard: a single target, nothing to compare: not judged");
    expect(results.aa).toBeUndefined();
    expect(results.verdicts).toEqual([]);
  });

  it("shows its latency, memory and probe figures in report.md, without ratios", () => {
    const md = readFileSync(join(out, "report.md"), "utf8");
    expect(md).toContain("A single target, **batched**");
    expect(md).not.toContain("No latency trials");
    const latency = tableUnder(md, "## Latency", "case");
    expect(latency.header.slice(0, 3)).toEqual(["case", "marker received, batched median", "acknowledged median"]);
    expect(rowWhere(latency, "case", "resume-many")).toMatchObject({
      "marker received, batched median": expect.stringMatching(/^\d+\.\d ms$/),
      "acknowledged median": expect.stringMatching(/^\d+\.\d ms$/),
      chunks: "1",
    });
    // In the table, or (every case alike) in the small table of fixed conditions above it.
    expect(new Set(valuesUnder(md, "## Latency", "ok trials"))).toEqual(new Set(["2"]));
    const memory = rowWhere(tableUnder(md, "## Memory", "cell"), "cell", "1 KiB × 1, resume");
    expect(memory["peak heap"]).toMatch(/^\d+\.\d$/);
    expect(new Set(valuesUnder(md, "## Memory", "ok trials"))).toEqual(new Set(["1"]));
    expect(rowWhere(tableUnder(md, "## Concurrent probe"), "cell", "1 KiB × 1, snapshot")).toMatchObject({
      aggregation: "median of per-trial maxima",
      "probe latency": expect.stringMatching(/^\d+\.\d ms$/),
    });
    expect(md).not.toContain("→");
    expect(md).not.toContain("Verdicts per cell");
  });

  it("shows the same figures in report.html, with its timelines", () => {
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain("A single target");
    expect(rowWhere(tableUnder(html, "<h2>Latency", "case"), "case", "resume-many")).toMatchObject({
      "marker received, batched median": expect.stringMatching(/^\d+\.\d ms$/),
      "acknowledged median": expect.stringMatching(/^\d+\.\d ms$/),
      chunks: "1",
    });
    expect(rowWhere(tableUnder(html, "<h2>Memory", "cell"), "cell", "1 KiB × 1, resume")["peak heap"]).toMatch(
      /^\d+\.\d$/,
    );
    expect(html).toContain('id="memory-0"');
    expect(html).not.toContain("→");
  });
});
