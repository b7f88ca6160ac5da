// A run measures exactly one fixture. Memory cells start a fresh server per trial, each from a copy of
// the fixture; while such a run measures, its default fixture in --fixtures-dir is replaced twice: first
// renamed over by a rebuild from another seed (as a concurrent `bench --seed 2` on the same folder
// publishes its file), then overwritten in place by hand with a fixture of 50 projects. Every trial of
// a cell still moves the same bytes through completion, and results.json records the digest of the
// fixture the run started with.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { readFixtureMeta } from "../../fixtures/meta.js";
import { BENCH_THREADS, defaultFixtureName } from "../../scripts/bench/fixtures/fixtures.js";
import { rowsOf, startCli, waitUntil } from "./support/harness.js";

let root: string;
const shape = (projects: number, seed: number, out: string) =>
  generateFixture({
    projects,
    scriptBytesMin: 1024,
    scriptBytesMax: 1024,
    scriptsPerProject: 1,
    events: 1000,
    ...BENCH_THREADS,
    seed,
    out,
  });

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "catchup-swap-"));
  shape(1000, 2, join(root, "rebuilt.sqlite")); // the bench's default shape from another seed
  shape(50, 1, join(root, "small.sqlite"));
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a fixture replaced while a run measures it", () => {
  it("every memory trial measures the fixture the run started with; results.json names its digest", async () => {
    const dir = join(root, "fixtures");
    mkdirSync(dir);
    const path = join(dir, defaultFixtureName(1000, 1024, 1000));
    const out = join(root, "run");
    const jsonl = join(out, "results.jsonl");
    // --memory-sequential 0: exactly the planned trials (no rounds added to undecided cells).
    const args = [
      "bench",
      "--no-latency",
      "--no-aa",
      "--memory-sequential",
      "0",
      "--script-bytes",
      "1024",
      "--clients",
      "1",
    ];
    const run = startCli([...args, "--memory-trials", "2", "--fixtures-dir", dir, "--out", out]);
    const memoryRows = () => rowsOf(jsonl, "memory");
    expect(await waitUntil(() => memoryRows().length >= 1, 150_000), run.stderr()).toBe(true);
    const measured = readFixtureMeta(path).contentSha256; // the file the run built and started with
    renameSync(join(root, "rebuilt.sqlite"), path); // a concurrent rebuild publishes its file
    expect(await waitUntil(() => memoryRows().length >= 3, 150_000), run.stderr()).toBe(true);
    copyFileSync(join(root, "small.sqlite"), path); // by hand, in place
    const exit = await run.exited;
    expect(exit.code, run.stderr()).toBe(0);

    const rows = memoryRows();
    expect(rows).toHaveLength(8); // 2 variants × memory (resume), snapshot × 2 trials
    for (const variant of ["legacy", "batched"]) {
      for (const mode of ["memory", "snapshot"]) {
        const cell = rows.filter((r) => r.variant === variant && r.mode === mode);
        const bytes = new Set(cell.map((r) => r.bytesThroughCompletion));
        expect([...bytes], `bytes through completion of ${variant} ${mode}`).toHaveLength(1);
      }
    }
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(results.run.fixtures.memory[0].contentSha256).toBe(measured);
  }, 300_000);
});
