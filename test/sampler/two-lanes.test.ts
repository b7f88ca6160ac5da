// The two lanes against a target that blocks its thread in one native call (crypto.pbkdf2Sync), where
// its inspector cannot answer: RSS samples keep arriving inside the block, no heap sample is answered
// inside it, the stretch is recorded as a heap gap, and the summary records both lanes and the
// target's CPU time. The block window comes from the target's own CLOCK_MONOTONIC (process.hrtime),
// which this process shares, so samples are placed inside it exactly; nothing here bounds a timing.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { SampleLine } from "../../scripts/results.js";
import { connectInspector, type InspectorClient, inspectorUrlFromStderr } from "../../scripts/sampler/inspector.js";
import { type HeapSample, type RssSample, type Sampler, startSampler } from "../../scripts/sampler/sampler.js";
import { killAll, startProbe, until } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "two-lanes-test-"));
const clients: InspectorClient[] = [];
const samplers: Sampler[] = [];
afterEach(async () => {
  await Promise.all(samplers.splice(0).map((s) => s.stop()));
  await Promise.all(clients.splice(0).map((c) => c.close(1_000)));
  killAll();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** RSS samples that must have timestamps inside the block (at 10 ms, a block of hundreds of ms holds far more). */
const MIN_RSS_INSIDE = 3;

describe("two-lane sampler, target blocked outside JavaScript", () => {
  it("keeps RSS samples arriving during the block while heap samples pause, and records both lanes", async () => {
    const t = await startProbe(["--inspect=127.0.0.1:0"]);
    const url = inspectorUrlFromStderr(t.stderr());
    if (!url) throw new Error(`no inspector banner: ${t.stderr()}`);
    const c = await connectInspector(url);
    clients.push(c);

    // The sampler's t = 0 on both clocks: performance.now() here and CLOCK_MONOTONIC (hrtime).
    const hr0 = process.hrtime.bigint();
    const origin = performance.now();
    const tOf = (hrtime: string) => Number(BigInt(hrtime) - hr0) / 1e6;

    const rss: RssSample[] = [];
    const heap: HeapSample[] = [];
    const file = join(dir, "native.jsonl");
    const s = await startSampler({
      pid: t.pid,
      inspector: c,
      intervalMs: 10,
      origin,
      file,
      onRss: (x) => rss.push(x),
      onHeap: (x) => heap.push(x),
    });
    samplers.push(s);
    await until(() => heap.length >= 3 && rss.length >= 3, 15_000, "samples before the block");

    expect(await t.command("native 500")).toMatchObject({ started: "native" });
    const done = await t.nextLine();
    expect(done).toMatchObject({ done: "native" });
    const from = tOf(done.from as string);
    const to = tOf(done.to as string);
    // The answer the block held back, and RSS samples after it, so the window is closed on both sides.
    const heapBefore = heap.filter((h) => h.t <= to).length;
    await until(() => heap.length > heapBefore && rss.some((x) => x.t > to), 15_000, "samples after the block");
    const summary = await s.stop();
    expect(summary.error).toBeNull();

    const rssInside = rss.filter((x) => x.t > from && x.t < to);
    const heapInside = heap.filter((x) => x.t > from && x.t < to);
    expect(rssInside.length).toBeGreaterThanOrEqual(MIN_RSS_INSIDE);
    expect(heapInside).toEqual([]);

    // The stretch with no heap answer covers the whole block (1 ms: converting between the two clocks).
    const gap = (summary.heapGapMaxMs as number) + 1;
    expect(gap).toBeGreaterThanOrEqual(to - from);
    expect(summary.heapInterval?.max).toBeGreaterThanOrEqual(to - from - 1);
    expect(summary.heapGaps).toBeGreaterThanOrEqual(1);

    // Both lanes in the summary and in the file; the gap is a line of its own, never filled in.
    expect(summary.rssSamples).toBe(rss.length);
    expect(summary.heapSamples).toBe(heap.length);
    expect(summary.interval).not.toBeNull();
    expect(summary.heapInterval).not.toBeNull();
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as SampleLine);
    expect(lines.filter((l) => "rss" in l)).toHaveLength(rss.length);
    expect(lines.filter((l) => "heapUsed" in l)).toHaveLength(heap.length);
    const gapLines = lines.filter((l): l is { t: number; heapGapMs: number } => "heapGapMs" in l);
    expect(gapLines.some((g) => g.t >= to && g.t - g.heapGapMs <= from)).toBe(true);
    for (const l of lines) expect("rss" in l && "heapUsed" in l).toBe(false); // one lane per line
    for (let i = 1; i < lines.length; i++)
      expect((lines[i] as SampleLine).t).toBeGreaterThanOrEqual((lines[i - 1] as SampleLine).t);

    // The target's CPU time over the window includes the block's (pidusage counts clock ticks: 10 ms).
    expect(summary.targetCpuMs).not.toBeNull();
    expect(summary.targetCpuMs as number).toBeGreaterThanOrEqual((done.cpuMs as number) - 10);
  });
});
