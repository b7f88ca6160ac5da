// `report` on a results file of another version: an older version (results@1, whose sampleIntervalMs
// was one sampler's interval for RSS and heap together) is read and shown with that interval in both
// lane columns; a version this one cannot read is one line naming the file and the versions it
// reads, exit 2, nothing written. `report --merge` (k6 runner summaries) refuses a bench run.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESULTS_SCHEMA } from "../../scripts/results/schema.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { syntheticResults } from "../report/synthetic-run.js";
import { runCli } from "./support/harness.js";

let root: string;
/** results.json of a synthetic run: memory rows with sampleIntervalMs and no heap lane figures. */
let original: Record<string, unknown>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "catchup-versions-"));
  syntheticResults(join(root, "synthetic"), { trials: 2 });
  original = JSON.parse(readFileSync(join(root, "synthetic", "results.json"), "utf8"));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A run folder holding results.json with the synthetic run under another schema tag. */
function runWithSchema(name: string, schema: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "results.json"), JSON.stringify({ ...original, schema }));
  return dir;
}

/** The two lane cells (RSS lane, heap lane) of each row of report.md's sampler-health table. */
function laneCells(markdown: string): [string, string][] {
  const lines = markdown.split("\n");
  const header = lines.findIndex((l) => l.includes("RSS lane median / p99 / max (ms)"));
  expect(header, "no memory table").toBeGreaterThanOrEqual(0);
  const rows: [string, string][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split("|").map((c) => c.trim());
    rows.push([cells.at(-3) as string, cells.at(-2) as string]);
  }
  expect(rows.length).toBeGreaterThan(0);
  return rows;
}

describe("report and results versions", () => {
  it("writes the current version", () => {
    expect(RESULTS_SCHEMA).toBe("catchup-bench/results@3");
    expect(original.schema).toBe(RESULTS_SCHEMA);
  });

  it("reads results@1: its one sampling interval is both lanes' interval", async () => {
    const dir = runWithSchema("v1", "catchup-bench/results@1");
    const r = await runCli(["report", dir], 30_000);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    // stderr holds the written paths and the closing line (stdout is the Markdown alone), no error.
    expect(r.stderr).not.toMatch(/Error|catchup-bench: /);
    for (const [rss, heap] of laneCells(readFileSync(join(dir, "report.md"), "utf8"))) {
      expect(rss).toMatch(/^\d/);
      expect(heap).toBe(rss);
    }
    // The file itself is left as it was.
    expect(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")).schema).toBe("catchup-bench/results@1");
  });

  it("does not invent a heap lane for results@3 rows that have none", async () => {
    const dir = runWithSchema("v2", RESULTS_SCHEMA);
    const r = await runCli(["report", dir], 30_000);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    for (const [rss, heap] of laneCells(readFileSync(join(dir, "report.md"), "utf8"))) {
      expect(rss).toMatch(/^\d/);
      expect(heap).toMatch(/^n\/a/);
    }
  });

  it("refuses a version it cannot read: one line naming the file and the versions it reads, exit 2", async () => {
    for (const [name, schema] of [
      ["v4", "catchup-bench/results@4"],
      ["v0", "catchup-bench/results@0"],
    ] as const) {
      const dir = runWithSchema(name, schema);
      const r = await runCli(["report", dir], 30_000);
      expect(r.code, r.stderr).toBe(EXIT.usage);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`${join(dir, "results.json")} has schema "${schema}"`);
      expect(r.stderr).toContain(
        "this version reads catchup-bench/results@1 or catchup-bench/results@2 or catchup-bench/results@3",
      );
      expect(readdirSync(dir)).toEqual(["results.json"]);
    }
  });

  it("reads a results.jsonl of results@1 (a run stopped hard) the same way, and refuses an unknown one", async () => {
    for (const [name, schema, code] of [
      ["jsonl-v1", "catchup-bench/results@1", EXIT.ok],
      ["jsonl-v4", "catchup-bench/results@4", EXIT.usage],
    ] as const) {
      const dir = join(root, name);
      mkdirSync(dir);
      const o = original as { run: unknown; variants: unknown; memory: unknown[] };
      const lines = [
        { kind: "run", schema, run: o.run, variants: o.variants },
        ...o.memory.map((row) => ({ kind: "memory", row })),
      ];
      writeFileSync(join(dir, "results.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
      const r = await runCli(["report", dir], 30_000);
      expect(r.code, r.stderr).toBe(code);
      if (code === EXIT.ok) {
        for (const [rss, heap] of laneCells(readFileSync(join(dir, "report.md"), "utf8"))) expect(heap).toBe(rss);
      } else {
        expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
        expect(r.stderr).toMatch(
          /results\.jsonl: cannot be read as results \(its run line has schema "catchup-bench\/results@4"; this version reads catchup-bench\/results@1 or catchup-bench\/results@2 or catchup-bench\/results@3\)/,
        );
      }
    }
  });
});

describe("report --merge given a bench run", () => {
  it("is refused in one line that says to render it with `report RUN_DIR`, exit 2, nothing written", async () => {
    const dir = runWithSchema("merge-me", RESULTS_SCHEMA);
    const out = join(root, "merged");
    const r = await runCli(["report", "--merge", dir, "--out", out], 30_000);
    expect(r.code, r.stderr).toBe(EXIT.usage);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`--merge ${dir} is a bench run, not a k6 runner summary`);
    expect(r.stderr).toContain("catchup-bench report RUN_DIR");
    expect(readdirSync(dir)).toEqual(["results.json"]);
    expect(readdirSync(root)).not.toContain("merged");
  });
});
