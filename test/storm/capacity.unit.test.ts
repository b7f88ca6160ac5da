// maxOpen: the most sessions open at one moment, each open from its start to its completion plus the hold.
import { describe, expect, it } from "vitest";
import { maxOpen } from "../../scripts/storm/capacity.js";
import type { StormSession } from "../../scripts/storm/figures.js";

const s = (startMs: number, caughtUpAtMs: number | null): StormSession => ({
  ok: caughtUpAtMs !== null,
  error: null,
  resume: true,
  startMs,
  caughtUpAtMs,
  completionMs: caughtUpAtMs === null ? null : caughtUpAtMs - startMs,
});

describe("maxOpen", () => {
  it("counts overlapping sessions, the hold included", () => {
    // [0, 15), [10, 25), [30, 45) with a 5 ms hold: two overlap at most.
    expect(maxOpen([s(0, 10), s(10, 20), s(30, 40)], 5)).toBe(2);
    // A longer hold makes all three overlap.
    expect(maxOpen([s(0, 10), s(10, 20), s(30, 40)], 25)).toBe(3);
  });
  it("leaves out sessions that never caught up, and a session ending as another starts", () => {
    expect(maxOpen([s(0, 10), s(10, 20), s(0, null)], 0)).toBe(1);
  });
});
