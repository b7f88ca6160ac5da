// Where the target's RSS and CPU come from: /proc where it exists, else pidusage's ps mode; the
// environment switch that forces ps; the coarser RSS interval ps keeps; a system without /proc refused.
import { describe, expect, it } from "vitest";
import { checkProcessStats } from "../../scripts/bench/run/preflight.js";
import {
  laneIntervalFor,
  PS_LANE_INTERVAL_MS,
  processStatsInfo,
  processStatsSource,
} from "../../scripts/sampler/process-stats.js";
import { UsageError } from "../../scripts/util/usage.js";

const ENV = "CATCHUP_BENCH_PROCESS_STATS";

describe("the process figures' source", () => {
  it("is /proc where it exists and ps where it does not", () => {
    expect(processStatsSource({}, true)).toBe("proc");
    expect(processStatsSource({}, false)).toBe("ps");
  });
  it("is ps when the environment asks for it, also where /proc exists", () => {
    expect(processStatsSource({ [ENV]: "ps" }, true)).toBe("ps");
    expect(processStatsSource({ [ENV]: "proc" }, true)).toBe("proc");
  });
  it("names the variable and the allowed values for a bad one", () => {
    expect(() => processStatsSource({ [ENV]: "pidusage" }, true)).toThrow(
      `${ENV} must be one of proc, ps (got "pidusage")`,
    );
    expect(() => processStatsSource({ [ENV]: "proc" }, false)).toThrow(/this system has no \/proc/);
  });
});

describe("the RSS interval a source keeps", () => {
  it("is the asked one through /proc and never finer than the ps lane's through ps", () => {
    expect(laneIntervalFor("proc", 1)).toBe(1);
    expect(laneIntervalFor("ps", 10)).toBe(PS_LANE_INTERVAL_MS);
    expect(laneIntervalFor("ps", 500)).toBe(500);
  });
  it("is what results.json records", () => {
    expect(processStatsInfo(10, "ps")).toMatchObject({ source: "ps", rssIntervalMs: PS_LANE_INTERVAL_MS });
    expect(processStatsInfo(10, "proc")).toMatchObject({ source: "proc", rssIntervalMs: 10 });
  });
});

describe("a bench on a system without /proc", () => {
  it("is refused in one line that says why", () => {
    let error: unknown = null;
    try {
      checkProcessStats(false);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toMatch(/^this system has no \/proc: /);
    expect(message).not.toContain("\n");
  });
  it("runs where /proc exists", () => {
    expect(() => checkProcessStats(true)).not.toThrow();
  });
});
