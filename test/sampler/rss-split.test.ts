// The RSS split on the heap lane's ticks against a real target: 96 MiB of Buffers pinned by the
// target show up under external (and array buffers), not heap; every tick's components add up to the
// RSS the target reported at that tick, with a remainder ≥ 0; the samples file carries the split.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SampleLine } from "../../scripts/results/schema.js";
import { type HeapSample, startSampler } from "../../scripts/sampler/sampler.js";
import { inspectedProbe, keepSampler, stopAll, until } from "./support.js";

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "rss-split-test-"));
afterAll(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe("RSS split", () => {
  it("puts 96 MiB of pinned Buffers under external, not heap, and sums to the tick's RSS", async () => {
    const { t, c } = await inspectedProbe();
    const heap: HeapSample[] = [];
    const file = join(dir, "split.jsonl");
    const s = await startSampler({ pid: t.pid, inspector: c, intervalMs: 10, file, onHeap: (x) => heap.push(x) });
    keepSampler(s);
    await until(() => heap.length >= 3, 15_000, "heap ticks before the allocation");
    const before = heap.at(-1) as HeapSample;
    const allocFrom = heap.length;
    expect(await t.command(`alloc ${96 * MiB}`)).toMatchObject({ started: "alloc" });
    expect(await t.nextLine()).toMatchObject({ done: "alloc" });
    const n = heap.length;
    await until(() => heap.length >= n + 3, 15_000, "heap ticks after the allocation");
    const after = heap.at(-1) as HeapSample;
    const summary = await s.stop();
    expect(summary.error).toBeNull();

    const grew = (k: "external" | "arrayBuffers" | "heapUsed") => ((after[k] as number) - (before[k] as number)) / MiB;
    expect(grew("external")).toBeGreaterThan(95);
    expect(grew("external")).toBeLessThan(97);
    // 96 MiB within 1%: a few KiB of other Buffers may come and go meanwhile.
    expect(grew("arrayBuffers")).toBeGreaterThan(95);
    expect(grew("heapUsed")).toBeLessThan(4);
    expect(((after.tickRss as number) - (before.tickRss as number)) / MiB).toBeGreaterThan(90);

    // Every tick carries the split, and the parts add up to its RSS with nothing negative left over,
    // except at a tick taken while the Buffers were being allocated: external counts them from their
    // allocation, RSS only once their pages are touched (the summary counts such ticks, it does not
    // hide them).
    const split = summary.rssSplit;
    expect(split?.samples).toBe(heap.length);
    const during = (i: number) => i >= allocFrom && i <= n;
    expect(split?.negativeRemainders).toBeLessThanOrEqual(n - allocFrom + 1);
    heap.forEach((h, i) => {
      if (!during(i)) expect(h.tickRss).toBeGreaterThanOrEqual(h.heapTotal + (h.external as number));
    });
    const p = split?.atRssPeak;
    expect(p && p.heapTotal + p.external + p.remainder).toBe(p?.rss);
    expect((p?.external as number) / MiB).toBeGreaterThan(96);
    expect(split?.peak.external).toBe(Math.max(...heap.map((h) => h.external as number)));
    // The target's own RSS at its peak tick agrees with the RSS lane's peak (both after the plateau).
    expect(Math.abs((p?.rss as number) - (summary.peakRssBytes as number)) / MiB).toBeLessThan(8);

    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as SampleLine);
    const heapLines = lines.filter((l) => "heapUsed" in l && !("phase" in l));
    expect(heapLines.length).toBe(heap.length);
    expect(heapLines.every((l) => "external" in l && "arrayBuffers" in l && "tickRss" in l)).toBe(true);
  });

  it("reads heap only when the split is off", async () => {
    const { t, c } = await inspectedProbe();
    const heap: HeapSample[] = [];
    const s = await startSampler({
      pid: t.pid,
      inspector: c,
      intervalMs: 10,
      split: false,
      onHeap: (x) => heap.push(x),
    });
    keepSampler(s);
    await until(() => heap.length >= 3, 15_000, "heap ticks");
    const summary = await s.stop();
    expect(summary.rssSplit).toBeNull();
    expect(heap.every((h) => h.external === undefined && h.tickRss === undefined)).toBe(true);
  });
});
