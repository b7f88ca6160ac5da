// Leak rows in the guard, the report table and the chart data; and the leak flags' rules.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { leakCharts, leakMarkdown } from "../../scripts/report/leak-section.js";
import type { LeakPoint, LeakRow } from "../../scripts/results/leak-record.js";
import { RESULTS_SCHEMA, type Results } from "../../scripts/results/schema.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { UsageError } from "../../scripts/util/usage.js";
import { judge } from "../../scripts/verdicts/guard-verdict.js";
import { judgeLeak } from "../../scripts/verdicts/leak-guard.js";
import { leakRow } from "../../scripts/verdicts/leak-verdict.js";
import { testRunInfo } from "../support/run-info.js";

/** A straight line of post-GC heap with a fixed wobble (+-2 KiB), `slope` bytes per cycle. */
function line(slope: number, cycles: number): LeakPoint[] {
  return Array.from({ length: cycles }, (_, i) => ({
    cycle: i + 1,
    postGcHeapBytes: 30_000_000 + slope * (i + 1) + (i % 3 === 0 ? 2048 : -2048),
    rssBytes: 100_000_000,
    fds: 28,
  }));
}

const THRESHOLD = 16 * 1024;
const base = leakRow("A", 1, line(0, 25), 5, THRESHOLD);
const leaky = leakRow("B", 1, line(64 * 1024, 25), 5, THRESHOLD);

describe("judgeLeak", () => {
  it("fails a candidate whose verdict is leak, naming it", () => {
    const g = judgeLeak([base, leaky], "A", "B");
    expect(g.failed).toEqual(["leakSlopeBytes B"]);
    expect(g.lines[0]).toMatch(/^leakSlopeBytes B: heap slope 64\.0 KiB\/cycle .*: FAIL \(leak\)$/);
  });

  it("passes a candidate without a leak even when the baseline leaks", () => {
    const g = judgeLeak([leaky, { ...base, variant: "C" }], "B", "C");
    expect(g.failed).toEqual([]);
    expect(g.undecided).toEqual([]);
    expect(g.lines[0]).toMatch(/: PASS$/);
  });

  it("leaves the run without a verdict when the candidate has no slope or no row", () => {
    const short = leakRow("B", 1, line(0, 8), 5, THRESHOLD);
    expect(judgeLeak([base, short], "A", "B").undecided).toEqual(["leakSlopeBytes B"]);
    expect(judgeLeak(undefined, "A", "B").undecided).toEqual(["leakSlopeBytes B"]);
  });
});

function resultsWith(leak: LeakRow[] | undefined): Results {
  return {
    schema: RESULTS_SCHEMA,
    run: testRunInfo(),
    variants: [
      { name: "A", kind: "bundled", command: "a", role: "baseline" },
      { name: "B", kind: "bundled", command: "b", role: "candidate" },
    ],
    latency: [],
    memory: [],
    ...(leak ? { leak } : {}),
  };
}

describe("the guard with leakSlopeBytes", () => {
  it("exits 1 when the candidate leaks, saying why", () => {
    const d = judge(resultsWith([base, leaky]), { ceiling: 1.03, metrics: ["leakSlopeBytes"] });
    expect(d.exitCode).toBe(EXIT.regression);
    expect(d.lines.at(-1)).toBe("guard: FAIL (leak) in 1 cell: leakSlopeBytes B");
  });

  it("passes when it does not, and has no verdict without leak rows", () => {
    const ok = judge(resultsWith([base, { ...base, variant: "B" }]), { ceiling: 1.03, metrics: ["leakSlopeBytes"] });
    expect(ok.exitCode).toBe(EXIT.ok);
    const none = judge(resultsWith(undefined), { ceiling: 1.03, metrics: ["leakSlopeBytes"] });
    expect(none.exitCode).toBe(EXIT.noResult);
  });
});

describe("leak report", () => {
  it("renders one table row per variant with slope, interval and verdict", () => {
    const md = leakMarkdown([base, leaky], { baseline: "A", candidate: "B" }).join("\n");
    expect(md).toMatch(
      /^\| A \(baseline\) \| 20 \(5\) \| 1 \| [+-]?\d+\.\d \[.*\] \| 0\.0 \| 0\.00 \| 16\.0 \| no-leak \|$/m,
    );
    expect(md).toMatch(/^\| B \(candidate\) \| 20 \(5\) \| 1 \| \+64\.0 \[.*\] \| .* \| leak \|$/m);
    expect(md).toMatch(/Candidate B minus baseline A: \+64\.0 KiB/);
  });

  it("renders nothing without leak rows", () => {
    expect(leakMarkdown([], null)).toEqual([]);
    expect(leakMarkdown(undefined, null)).toEqual([]);
  });

  it("charts warm-up points apart and a fitted line through the measured ones", () => {
    const [, chart] = leakCharts([base, leaky], "A");
    expect(chart?.role).toBe(1);
    const [xs, warm, measured, fit] = chart?.data ?? [];
    expect(xs).toHaveLength(25);
    expect(warm?.slice(0, 5).every((v) => v !== null)).toBe(true);
    expect(warm?.slice(5).every((v) => v === null)).toBe(true);
    expect(measured?.slice(0, 5).every((v) => v === null)).toBe(true);
    // The fit rises by the slope per cycle (64 KiB = 0.0625 MiB).
    const a = fit?.[10] as number;
    const b = fit?.[20] as number;
    expect((b - a) / 10).toBeCloseTo(0.0625, 3);
  });
});

describe("leak flags", () => {
  it("--leak-only needs --leak-cycles", () => {
    expect(() => resolveConfig({ "leak-only": true })).toThrow(UsageError);
  });

  it("--leak-only runs neither matrix; the threshold is in bytes; the guard defaults to the leak slope", () => {
    const c = resolveConfig({ "leak-only": true, "leak-cycles": 30, "leak-threshold-kib": 8, ceiling: 1.03 });
    expect(c.latency.enabled).toBe(false);
    expect(c.memory.enabled).toBe(false);
    expect(c.leak.cycles).toBe(30);
    expect(c.leak.thresholdBytes).toBe(8192);
    expect(c.guardMetrics).toEqual(["leakSlopeBytes"]);
  });

  it("refuses fewer than 10 measured cycles", () => {
    expect(() => resolveConfig({ "leak-cycles": 5 })).toThrow(/--leak-cycles/);
  });
});
