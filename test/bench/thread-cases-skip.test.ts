// A latency fixture without threads (built before threads existed, or with --threads 0) has no
// thread to subscribe to: the bench runs the other cases, says once that the thread cases were
// skipped, and records only the cases it ran.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import type { Results } from "../../scripts/results/schema.js";
import { startBench } from "./bench-child.js";

const dir = mkdtempSync(join(tmpdir(), "bench-threadless-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("skips the thread cases on a fixture without threads, saying so", async () => {
  const fixture = generateFixture({
    projects: 30,
    scriptBytesMin: 64,
    scriptBytesMax: 64,
    scriptsPerProject: 1,
    events: 10,
    seed: 2,
    out: join(dir, "threadless.sqlite"),
  }).path;
  const out = join(dir, "run");
  const child = startBench([
    "--no-memory",
    "--no-aa",
    "--trials",
    "1",
    "--fixture",
    fixture,
    "--cases",
    "snapshot,thread-snapshot,thread-resume",
    "--out",
    out,
  ]);
  const { code } = await child.exit(120_000);
  expect(code, child.stderr()).toBe(0);
  expect(child.stderr()).toContain(`thread cases skipped: fixture ${fixture} has no threads`);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  expect(results.run.config.cases).toEqual(["snapshot"]);
  expect(new Set(results.latency.map((r) => r.case))).toEqual(new Set(["snapshot"]));
  expect(results.latency.every((r) => r.ok)).toBe(true);
});
