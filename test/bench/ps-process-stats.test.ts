// The portable path end to end: CATCHUP_BENCH_PROCESS_STATS=ps makes a bench read the target's RSS
// and CPU time through pidusage's ps mode, as on a system whose pidusage has no /proc reader. One
// memory cell (both modes, one client): its rows keep the coarser cadence the run says it kept (never the 10 ms asked for),
// the report states it, and the figures /proc alone gives (the kernel's peak) are absent, not made up.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { PS_LANE_INTERVAL_MS } from "../../scripts/sampler/process-stats.js";
import { benchResults } from "./bench-child.js";

let dir: string;
let results: Results;
let report: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bench-ps-"));
  const out = join(dir, "run");
  // --quick's memory cells with one client: 1 KiB scripts, one trial a variant, no A/A.
  const args = ["--quick", "--no-latency", "--clients", "1", "--fixtures-dir", join(dir, "fixtures")];
  const run = await benchResults(args, out, 120_000, { CATCHUP_BENCH_PROCESS_STATS: "ps" });
  expect(run.code, run.stderr).toBe(0);
  results = run.results;
  report = readFileSync(join(out, "report.md"), "utf8");
}, 150_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a memory cell read through pidusage's ps mode", () => {
  it("records the source and the interval it keeps", () => {
    expect(results.run.processStats).toMatchObject({ source: "ps", rssIntervalMs: PS_LANE_INTERVAL_MS });
  });
  it("measures every row at that cadence, not at the 10 ms asked for", () => {
    expect(results.memory.length).toBeGreaterThan(0);
    for (const row of results.memory) {
      expect(row.ok, row.error ?? "").toBe(true);
      expect(row.peakRssBytes).toBeGreaterThan(10 * 2 ** 20);
      expect(row.rssSamples).toBeGreaterThan(2);
      // Deadline-scheduled: the median interval is the lane's, a slot late at most skips ahead.
      expect(row.sampleIntervalMs?.median).toBeGreaterThanOrEqual(PS_LANE_INTERVAL_MS - 1);
      expect(row.targetCpuMs).not.toBeNull();
      // The kernel's peak (VmHWM) is read from /proc only: absent, not made up.
      expect(row.hwmRssBytes).toBeNull();
    }
  });
  it("says so in the report's conditions", () => {
    expect(report).toContain(`sampling RSS every ${PS_LANE_INTERVAL_MS} ms through ps (pidusage)`);
  });
});
