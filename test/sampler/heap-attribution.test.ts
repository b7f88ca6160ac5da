// --attribute's profiler against a foreign Node process (not the bundled server): a named function
// that keeps 64 MiB on the V8 heap is the top site of the live profile taken at the heap lane's
// maximum, its size within 10%; memory allocated and dropped at once is in the "total" profile (which
// keeps collected objects) and not in the live one. Real inspector, real sampler, real profiler.
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { HeapSite } from "../../scripts/results/attribution-record.js";
import { startHeapProfiling } from "../../scripts/sampler/heap-profiler.js";
import { heapSites } from "../../scripts/sampler/heap-sites.js";
import { connectInspector, inspectorUrlFromStderr } from "../../scripts/sampler/inspector.js";
import { startSampler } from "../../scripts/sampler/sampler.js";
import { keepSampler, startTarget, stopAll, until } from "./support.js";

const TARGET = fileURLToPath(new URL("./targets/known-allocation.mjs", import.meta.url));
const MiB = 1024 * 1024;

/** The JavaScript function a site names: the frame, or for a builtin (no url, e.g. Array.prototype.slice) its caller. */
const owner = (s: HeapSite | undefined) => (s?.frame.url ? s.frame : s?.caller);
afterAll(stopAll);

async function profiled(kind: "peak" | "total", commands: string[]) {
  const t = await startTarget(process.execPath, ["--inspect=127.0.0.1:0", TARGET]);
  const url = inspectorUrlFromStderr(t.stderr());
  if (!url) throw new Error(`no inspector banner: ${t.stderr()}`);
  const c = await connectInspector(url);
  try {
    const p = await startHeapProfiling(c, { kind, intervalBytes: 32 * 1024, minGapMs: 50 });
    let ticks = 0;
    const s = await startSampler({
      pid: t.pid,
      inspector: c,
      intervalMs: 10,
      onHeap: (h) => {
        ticks++;
        p.onHeap(h.heapUsed);
      },
    });
    keepSampler(s);
    for (const cmd of commands) expect(await t.command(cmd)).toMatchObject({ done: cmd.split(" ")[0] });
    const after = ticks;
    await until(() => ticks >= after + 5, 15_000, "heap ticks after the commands");
    const summary = await s.stop();
    const capture = await p.finish();
    return { capture, summary, ...heapSites(capture.profile) };
  } finally {
    await c.close(1_000);
    t.kill();
  }
}

describe("heap profiler on a foreign target", () => {
  it("finds the named function holding 64 MiB on top of the live profile at the peak, within 10%", async () => {
    const { capture, sites, totalBytes } = await profiled("peak", ["hold 64"]);
    expect(capture.taken).not.toBe("end");
    expect(capture.requests).toBeGreaterThanOrEqual(1);
    const top = sites[0];
    expect(owner(top)?.functionName).toBe("holdKnownBlock");
    expect(owner(top)?.url).toMatch(/known-allocation\.mjs$/);
    expect(Math.abs((top?.bytes as number) / (64 * MiB) - 1)).toBeLessThan(0.1);
    expect(top?.bytes as number).toBeLessThanOrEqual(totalBytes);
  });

  it("keeps what was collected in the total profile only", async () => {
    const total = await profiled("total", ["churn 96", "hold 16"]);
    const churn = total.sites.find((s) => owner(s)?.functionName === "churnThrough");
    expect(Math.abs((churn?.bytes as number) / (96 * MiB) - 1)).toBeLessThan(0.1);
    expect(total.capture.taken).toBe("end");
    const live = await profiled("peak", ["churn 96", "hold 16"]);
    const liveChurn = live.sites.find((s) => owner(s)?.functionName === "churnThrough")?.bytes ?? 0;
    expect(liveChurn).toBeLessThan(32 * MiB);
    expect(owner(live.sites[0])?.functionName).toBe("holdKnownBlock");
  });
});
