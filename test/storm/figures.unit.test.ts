// Storm figures come from the sessions' own timestamps: every client is either ok or failed (with a
// kind), percentiles are over the ok clients' completion times, "all caught up" only when all did.
import { describe, expect, it } from "vitest";
import {
  caughtUpTimeline,
  classifyFailure,
  rampOffsets,
  resumePlan,
  type StormSession,
  stormFigures,
} from "../../scripts/storm/figures.js";

const ok = (startMs: number, completionMs: number, connectToSubscribe = 2): StormSession => ({
  ok: true,
  error: null,
  resume: true,
  startMs,
  completionMs,
  caughtUpAtMs: startMs + connectToSubscribe + completionMs,
});
const bad = (error: string): StormSession => ({
  ok: false,
  error,
  resume: true,
  startMs: 0,
  completionMs: null,
  caughtUpAtMs: null,
});

describe("classifyFailure", () => {
  it("names a refused upgrade, a timeout and an early close from the session's error text", () => {
    expect(classifyFailure("websocket error: Unexpected server response: 503")).toBe("upgrade-refused");
    expect(classifyFailure("websocket error: connect ECONNREFUSED 127.0.0.1:4000")).toBe("upgrade-refused");
    expect(classifyFailure("timed out after 60000 ms waiting for the connection to open")).toBe("timeout");
    expect(classifyFailure("connection closed (code 1006) while waiting for the completion marker")).toBe(
      "closed-early",
    );
    expect(classifyFailure("websocket error: read ECONNRESET")).toBe("closed-early");
    expect(classifyFailure("server defect: boom")).toBe("other");
    expect(classifyFailure(null)).toBe("other");
  });
});

describe("stormFigures", () => {
  it("counts every client once: ok + failed = N, failures by kind", () => {
    const sessions = [
      ok(0, 100),
      ok(1, 200),
      bad("timed out after 10 ms waiting for the connection to open"),
      bad("websocket error: Unexpected server response: 401"),
      bad("connection closed (code 1006) while waiting for the end of the hold"),
    ];
    const f = stormFigures(5, sessions);
    expect(f.ok + f.failed).toBe(5);
    expect(f.ok).toBe(2);
    expect(f.failures).toEqual({ "upgrade-refused": 1, timeout: 1, "closed-early": 1, other: 0 });
    // Failures mean the storm never all caught up.
    expect(f.allCaughtUpMs).toBeNull();
  });

  it("counts clients the driver never reported as failed", () => {
    const f = stormFigures(4, [ok(0, 10), ok(0, 20)]);
    expect(f).toMatchObject({ ok: 2, failed: 2 });
    expect(f.failures.other).toBe(2);
  });

  it("takes percentiles from the sessions' own completion times and the last completion moment", () => {
    // 1..100 ms completions, client i starting at i ms.
    const sessions = Array.from({ length: 100 }, (_, i) => ok(i, i + 1));
    const f = stormFigures(100, sessions);
    expect(f.completionMsP50).toBeCloseTo(50.5, 9);
    expect(f.completionMsP99).toBeCloseTo(99.01, 9);
    expect(f.completionMsMax).toBe(100);
    // Last client: starts at 99, subscribes 2 ms later, completes 100 ms after that.
    expect(f.allCaughtUpMs).toBe(201);
  });

  it("has no completion figures when nobody caught up", () => {
    const f = stormFigures(2, [bad("timed out"), bad("timed out")]);
    expect(f).toMatchObject({ ok: 0, failed: 2, completionMsP50: null, completionMsMax: null, allCaughtUpMs: null });
  });
});

describe("caughtUpTimeline", () => {
  it("rises by one per ok client in completion order", () => {
    const t = caughtUpTimeline([ok(0, 30, 0), bad("timed out"), ok(0, 10, 0), ok(0, 20, 0)]);
    expect(t).toEqual([
      [10, 1],
      [20, 2],
      [30, 3],
    ]);
  });
});

describe("resumePlan and rampOffsets", () => {
  it("resumes floor(n r) clients spread evenly", () => {
    expect(resumePlan(4, 1)).toEqual([true, true, true, true]);
    expect(resumePlan(4, 0)).toEqual([false, false, false, false]);
    expect(resumePlan(4, 0.5)).toEqual([false, true, false, true]);
    expect(resumePlan(1000, 0.3).filter(Boolean)).toHaveLength(300);
  });
  it("spreads connects evenly over the ramp", () => {
    expect(rampOffsets(4, 0)).toEqual([0, 0, 0, 0]);
    expect(rampOffsets(4, 100)).toEqual([0, 25, 50, 75]);
  });
});
