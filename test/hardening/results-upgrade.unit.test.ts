// Reading an older results version as the current one: results@1's sampleIntervalMs was one sampler's
// interval for RSS and heap together, so a row without a heap lane gets it as the heap lane's too; a
// row the two-lane sampler wrote before the bump keeps its own; the input is not modified.
import { describe, expect, it } from "vitest";
import { emptyRow } from "../../scripts/bench/memory/memory.js";
import { type MemoryRow, RESULTS_SCHEMA, type Results, upgradeResults } from "../../scripts/results/schema.js";
import { testRunInfo } from "../support/run-info.js";

const interval = { median: 10.2, p99: 13, max: 20 };
const row = (over: Partial<MemoryRow>): MemoryRow => ({
  ...emptyRow({ kind: "memory", scriptBytes: 1024, clients: 1, mode: "memory", variant: "a", trial: 1 }, null, ""),
  ok: true,
  sampleIntervalMs: interval,
  ...over,
});
const v1 = (memory: MemoryRow[], aa?: MemoryRow[]) =>
  ({
    schema: "catchup-bench/results@1",
    run: testRunInfo("2026-01-01T00:00:00.000Z"),
    variants: [],
    latency: [],
    memory,
    ...(aa ? { aa: { latency: [], memory: aa } } : {}),
  }) as unknown as Results & Record<string, unknown>;

describe("upgradeResults", () => {
  it("gives a one-lane @1 row its interval as the heap lane's, in the rows and the A/A rows", () => {
    const input = v1([row({ heapIntervalMs: undefined })], [row({ heapIntervalMs: undefined })]);
    const before = JSON.stringify(input);
    const out = upgradeResults(input);
    expect(out?.schema).toBe(RESULTS_SCHEMA);
    expect(out?.memory[0]?.heapIntervalMs).toEqual(interval);
    expect(out?.aa?.memory[0]?.heapIntervalMs).toEqual(interval);
    expect(JSON.stringify(input)).toBe(before);
  });

  it("keeps the heap lane of an @1 row written by the two-lane sampler, and a missing interval missing", () => {
    const heap = { median: 50, p99: 60, max: 900 };
    const out = upgradeResults(
      v1([row({ heapIntervalMs: heap }), row({ sampleIntervalMs: null, heapIntervalMs: undefined })]),
    );
    expect(out?.memory.map((r) => r.heapIntervalMs)).toEqual([heap, null]);
  });

  it("reads @2, whose verdicts have no outcome and whose undecided meant the guard only, as @3", () => {
    expect(RESULTS_SCHEMA).toBe("catchup-bench/results@3");
    const stored = { metric: "peakHeapBytes", cell: "1024x1/memory", verdict: "noise", undecided: false };
    const input = { ...v1([row({})]), schema: "catchup-bench/results@2", verdicts: [stored] };
    const out = upgradeResults(input);
    expect(out?.schema).toBe(RESULTS_SCHEMA);
    // The stored verdicts stay as written (history reads their outcome as null); `report` re-judges
    // the rows and gives every cell its outcome.
    expect(out?.verdicts).toEqual([stored]);
    expect(out?.memory).toEqual(input.memory);
  });

  it("returns the current version as it is, and null for one it cannot read", () => {
    const current = { ...v1([row({})]), schema: RESULTS_SCHEMA };
    expect(upgradeResults(current)).toBe(current);
    expect(upgradeResults({ ...current, schema: "catchup-bench/results@4" })).toBeNull();
    expect(upgradeResults({ ...current, schema: undefined })).toBeNull();
  });
});
