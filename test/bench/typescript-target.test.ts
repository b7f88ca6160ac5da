// A foreign target written in TypeScript runs from source through the project's own ts-node (the
// register file scripts/register-ts-node.mjs), with no build step: the bench measures it like any
// other target, samples the process that runs the .ts file (not a wrapper), and leaves nothing behind.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { descendants } from "../../scripts/sampler/procfs.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { cmdline, startBench, survivorsAfter } from "./bench-child.js";

const TS_TARGET = "node --import ./scripts/register-ts-node.mjs test/bench/targets/typescript-target.ts --port {port}";

let fixtures: TempFixtures | undefined;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("bench-typescript-target");
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 64, events: 20 });
});

afterAll(() => {
  fixtures?.cleanup();
});

describe("a TypeScript target run through ts-node", () => {
  it("is benched for latency and memory from its .ts source, and stopped at the end", async () => {
    const dir = fixtures?.dir as string;
    const out = join(dir, "run");
    const bench = startBench([
      "--quick",
      "--cases",
      "snapshot",
      "--clients",
      "1",
      "--fixture",
      fixture,
      "--fixtures-dir",
      join(dir, "defaults"),
      "--target",
      `ts=${TS_TARGET}`,
      "--out",
      out,
    ]);
    // Every process the run starts, gathered while it runs (targets come and go per cell).
    const seen = new Map<number, string>();
    const watch = setInterval(() => {
      for (const pid of descendants(bench.pid)) if (!seen.has(pid)) seen.set(pid, cmdline(pid));
    }, 50);
    const { code } = await bench.exit(60_000).finally(() => clearInterval(watch));
    expect(code, bench.stderr()).toBe(0);

    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
    expect(results.latency.map((r) => [r.variant, r.ok])).toEqual([["ts", true]]);
    expect(results.memory.map((r) => [r.mode, r.ok])).toEqual([
      ["memory", true],
      ["snapshot", true],
    ]);
    for (const row of results.memory) {
      expect(row.peakHeapBytes).toBeGreaterThan(0);
      expect(row.postGcHeapBytes).toBeGreaterThan(0);
    }

    // The sampled process is the node that runs the .ts file, found behind the `sh -c` wrapper.
    const samples = readdirSync(join(out, "samples"));
    expect(samples.length).toBe(2);
    for (const file of samples) {
      const baseline = readFileSync(join(out, "samples", file), "utf8")
        .split("\n")
        .filter((l) => l.includes('"phase":"baseline"'))
        .map((l) => JSON.parse(l) as { command: string });
      expect(baseline).toHaveLength(1);
      expect(baseline[0]?.command).toBe(
        TS_TARGET.replace("{port}", /--port (\d+)$/.exec(baseline[0]?.command ?? "")?.[1] ?? "?"),
      );
    }

    expect([...seen.values()].some((c) => c.includes("typescript-target.ts"))).toBe(true);
    expect(await survivorsAfter([...seen.keys()], 2000)).toEqual([]);
  }, 120_000);
});
