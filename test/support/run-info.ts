// Test aid: the run header of a results file, with fixed placeholder values (pure).
import type { RunInfo } from "../../scripts/results/schema.js";

/** A finished-less run on a 2-core "cpu" under node "v20", started at startedAt. */
export function testRunInfo(startedAt = "2026-11-30T00:00:00.000Z"): RunInfo {
  return {
    startedAt,
    finishedAt: null,
    node: "v20",
    cpuModel: "cpu",
    cores: 2,
    loadAverage: [0, 0, 0],
    gitCommit: null,
    config: {},
  };
}
