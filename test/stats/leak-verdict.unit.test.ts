// Leak rows from per-cycle readings: warm-up excluded, verdict from the lower bound of the slope.
import { describe, expect, it } from "vitest";
import { randomFloats } from "../../common/prng.js";
import type { LeakPoint } from "../../scripts/results/leak-record.js";
import { leakRow } from "../../scripts/verdicts/leak-verdict.js";

function series(cycles: number, bytesPerCycle: number, noise: number, seed = 1): LeakPoint[] {
  const next = randomFloats(seed);
  return Array.from({ length: cycles }, (_, i) => ({
    cycle: i + 1,
    // The first cycles settle caches: a big step the warm-up must hide.
    postGcHeapBytes: 30e6 + (i < 3 ? 4e6 : 0) + bytesPerCycle * i + noise * (next() - 0.5),
    rssBytes: 90e6 + 2 * bytesPerCycle * i,
    fds: 20,
  }));
}

describe("leakRow", () => {
  it("finds a leak of 64 KiB per cycle within 25% and calls it a leak", () => {
    const row = leakRow("candidate", 1, series(40, 65_536, 20_000), 3, 16 * 1024);
    expect(row.verdict).toBe("leak");
    expect(row.cycles).toBe(37);
    expect(row.slopeBytesPerCycle).toBeGreaterThan(65_536 * 0.75);
    expect(row.slopeBytesPerCycle).toBeLessThan(65_536 * 1.25);
    expect(row.rssSlopeBytesPerCycle).toBeCloseTo(131_072, 0);
    expect(row.fdSlopePerCycle).toBe(0);
  });

  it("calls a flat series no-leak even though its warm-up cycles stepped up", () => {
    const row = leakRow("baseline", 1, series(40, 0, 20_000), 3, 16 * 1024);
    expect(row.verdict).toBe("no-leak");
    expect(row.ciLow as number).toBeLessThanOrEqual(16 * 1024);
  });

  it("is missing, not no-leak, when too few cycles were measured", () => {
    const row = leakRow("candidate", 1, series(8, 65_536, 0), 3, 16 * 1024, "target crashed after cycle 8");
    expect(row.verdict).toBe("missing");
    expect(row.slopeBytesPerCycle).toBeNull();
    expect(row.error).toBe("target crashed after cycle 8");
  });
});
