// The two lanes against a target that blocks its thread in one native call (crypto.pbkdf2Sync), where
// its inspector cannot answer: RSS samples keep arriving inside the block, no heap request is answered
// inside it, the stretch is recorded as a heap gap, and the summary records both lanes and the
// target's CPU time. The block window comes from the target's own CLOCK_MONOTONIC (process.hrtime),
// which this process shares, so samples are placed inside it exactly; nothing here bounds a timing.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { SampleLine } from "../../scripts/results/schema.js";
import { type HeapSample, heapGapThresholdMs, type RssSample, startSampler } from "../../scripts/sampler/sampler.js";
import { inspectedProbe, keepSampler, stopAll, until } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "two-lanes-test-"));
afterEach(stopAll);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** RSS samples that must have timestamps inside the block (at 10 ms, a block of hundreds of ms holds far more). */
const MIN_RSS_INSIDE = 3;

describe("two-lane sampler, target blocked outside JavaScript", () => {
  it("keeps RSS samples arriving during the block while heap samples pause, and records both lanes", async () => {
    const { t, c } = await inspectedProbe();

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
    keepSampler(s);
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

    // While the native call runs the inspector answers nothing. The request pending when it returns
    // is answered at the first JavaScript instruction after it, which can beat the target's own
    // reading of `to` by microseconds; so of the heap requests asked during the block at most that
    // one arrives before `to`, and the RSS lane has taken samples inside the block before it came.
    const askedInside = heap.filter((x) => x.asked > from && x.t < to);
    expect(askedInside.length).toBeLessThanOrEqual(1);
    const heapPausedUntil = askedInside[0]?.t ?? to;
    expect(rss.filter((x) => x.t > from && x.t < heapPausedUntil).length).toBeGreaterThanOrEqual(MIN_RSS_INSIDE);
    // Any other answer arriving inside the window was asked before the block (given before it, delivered late).
    for (const x of heap.filter((h) => h.t > from && h.t < to && !askedInside.includes(h)))
      expect(x.asked).toBeLessThan(from);

    // The stretch without a heap answer across the block (the consecutive answers around its middle)
    // is recorded: the heap lane's longest gap and max interval cover it, and past the gap threshold
    // the file has a gap line for it.
    const mid = (from + to) / 2;
    const opening = heap.filter((x) => x.t <= mid).at(-1) as HeapSample;
    const closing = heap.find((x) => x.t > mid) as HeapSample;
    const stretch = closing.t - opening.t;
    expect(rss.filter((x) => x.t > opening.t && x.t < closing.t).length).toBeGreaterThanOrEqual(MIN_RSS_INSIDE);
    expect(summary.heapGapMaxMs as number).toBeGreaterThanOrEqual(stretch);
    expect(summary.heapInterval?.max).toBeGreaterThanOrEqual(stretch);

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
    if (stretch > heapGapThresholdMs(10)) {
      const r3 = (x: number) => Math.round(x * 1000) / 1000; // the file keeps microseconds
      expect(gapLines.some((g) => g.t === r3(closing.t) && Math.abs(g.heapGapMs - stretch) < 0.002)).toBe(true);
      expect(summary.heapGaps).toBeGreaterThanOrEqual(1);
    }
    for (const l of lines) expect("rss" in l && "heapUsed" in l).toBe(false); // one lane per line
    for (let i = 1; i < lines.length; i++)
      expect((lines[i] as SampleLine).t).toBeGreaterThanOrEqual((lines[i - 1] as SampleLine).t);

    // The target's CPU time over the window includes the block's (/proc counts clock ticks: 10 ms).
    expect(summary.targetCpuMs).not.toBeNull();
    expect(summary.targetCpuMs as number).toBeGreaterThanOrEqual((done.cpuMs as number) - 10);
  });
});
