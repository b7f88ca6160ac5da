// A run measures exactly one fixture. While a bench runs, its fixture file is replaced twice: first
// renamed over (as a concurrent rebuild with another seed publishes its file), then overwritten in place
// by hand with a fixture of 50 projects. Every trial of a variant still moves the same bytes through
// completion, and results.json records the digest of the fixture the run started with.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { rowsOf, startCli, waitUntil } from "./support/harness.js";

let root: string;
const fixtureOf = (name: string, projects: number, seed: number) =>
  generateFixture({
    projects,
    scriptBytesMin: 256,
    scriptBytesMax: 256,
    scriptsPerProject: 1,
    events: 20,
    seed,
    out: join(root, name),
  });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "catchup-swap-"));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a fixture replaced while a run measures it", () => {
  it("every trial measures the fixture the run started with; results.json names its digest", async () => {
    const original = fixtureOf("f.sqlite", 20, 1);
    fixtureOf("rebuilt.sqlite", 20, 2); // the same shape from another seed: different rows
    fixtureOf("big.sqlite", 50, 1);
    const out = join(root, "run");
    const jsonl = join(out, "results.jsonl");
    const run = startCli([
      "bench",
      "--no-memory",
      "--cases",
      "snapshot",
      "--trials",
      "3",
      "--no-aa",
      "--fixture",
      original.path,
      "--out",
      out,
    ]);
    expect(await waitUntil(() => rowsOf(jsonl).length >= 1, 90_000), run.stderr()).toBe(true);
    renameSync(join(root, "rebuilt.sqlite"), original.path); // a concurrent rebuild publishes its file
    expect(await waitUntil(() => rowsOf(jsonl).length >= 3, 90_000), run.stderr()).toBe(true);
    copyFileSync(join(root, "big.sqlite"), original.path); // by hand, in place
    const exit = await run.exited;
    expect(exit.code, run.stderr()).toBe(0);

    const rows = rowsOf(jsonl);
    expect(rows).toHaveLength(6);
    for (const variant of ["legacy", "batched"]) {
      const bytes = new Set(rows.filter((r) => r.variant === variant).map((r) => r.bytes));
      expect([...bytes], `bytes through completion of ${variant}`).toHaveLength(1);
    }
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(results.run.fixtures.latency.contentSha256).toBe(original.meta.contentSha256);
    expect(results.run.fixtures.latency.projects).toBe(20);
  }, 240_000);
});
