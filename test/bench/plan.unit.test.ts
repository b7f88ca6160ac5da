// The run plan interleaves variants and rotates the starting one each repetition (pure).
import { describe, expect, it } from "vitest";
import {
  afterSequenceFor,
  latencyPlan,
  latencyRound,
  memoryCells,
  memoryPlan,
  memoryRound,
  memoryTrialId,
  rotation,
} from "../../scripts/bench/rounds/plan.js";

describe("rotation", () => {
  it("starts each repetition one variant later", () => {
    expect(rotation(["A", "B", "C"], 0)).toEqual(["A", "B", "C"]);
    expect(rotation(["A", "B", "C"], 1)).toEqual(["B", "C", "A"]);
    expect(rotation(["A", "B", "C"], 2)).toEqual(["C", "A", "B"]);
    expect(rotation(["A", "B", "C"], 3)).toEqual(["A", "B", "C"]);
    expect(rotation([], 5)).toEqual([]);
  });
});

describe("latencyPlan", () => {
  it("interleaves variants within a case and rotates the start each repetition", () => {
    const plan = latencyPlan(["snapshot", "resume-many"], ["legacy", "batched"], 3);
    expect(plan.map((t) => `${t.trial}:${t.case}:${t.variant}`)).toEqual([
      "1:snapshot:legacy",
      "1:snapshot:batched",
      "1:resume-many:legacy",
      "1:resume-many:batched",
      "2:snapshot:batched",
      "2:snapshot:legacy",
      "2:resume-many:batched",
      "2:resume-many:legacy",
      "3:snapshot:legacy",
      "3:snapshot:batched",
      "3:resume-many:legacy",
      "3:resume-many:batched",
    ]);
  });

  it("gives every variant each trial number once per case", () => {
    const plan = latencyPlan(["snapshot", "resume-none", "resume-one", "resume-many"], ["a", "b", "c"], 4);
    expect(plan).toHaveLength(4 * 3 * 4);
    const keys = new Set(plan.map((t) => `${t.case}/${t.variant}/${t.trial}`));
    expect(keys.size).toBe(plan.length);
  });
});

describe("memoryPlan", () => {
  it("runs each cell's repetitions interleaved and rotated, cells in order", () => {
    const cells = memoryCells([1024, 8192], [1, 4], ["memory", "snapshot"]);
    expect(cells).toHaveLength(8);
    expect(cells[0]).toEqual({ scriptBytes: 1024, clients: 1, mode: "memory" });
    expect(cells[7]).toEqual({ scriptBytes: 8192, clients: 4, mode: "snapshot" });
    const plan = memoryPlan(cells.slice(0, 1), ["legacy", "batched"], 2);
    expect(plan.map((t) => `${t.trial}:${t.variant}`)).toEqual(["1:legacy", "1:batched", "2:batched", "2:legacy"]);
  });

  it("names samples files uniquely and safely", () => {
    const plan = memoryPlan(memoryCells([1024], [4], ["snapshot"]), ["a/b", "c"], 1);
    expect(memoryTrialId(plan[0] as (typeof plan)[0])).toBe("memory-s1024-c4-snapshot-a_b-t1");
    expect(memoryTrialId(plan[1] as (typeof plan)[0], "aa-")).toBe("aa-memory-s1024-c4-snapshot-c-t1");
  });
});

describe("rounds with the interleaved A/A copy", () => {
  it("runs baseline, candidate and the baseline's copy in every round, the start rotated each round", () => {
    const plan = latencyPlan(["snapshot"], ["legacy", "batched", "A2"], 4);
    expect(plan.map((t) => `${t.trial}:${t.variant}`)).toEqual([
      "1:legacy",
      "1:batched",
      "1:A2",
      "2:batched",
      "2:A2",
      "2:legacy",
      "3:A2",
      "3:legacy",
      "3:batched",
      "4:legacy",
      "4:batched",
      "4:A2",
    ]);
  });

  it("builds a single extra round for chosen cells, numbered and rotated as round N", () => {
    expect(latencyRound(["resume-many"], ["legacy", "batched", "A2"], 9).map((t) => `${t.trial}:${t.variant}`)).toEqual(
      ["9:A2", "9:legacy", "9:batched"],
    );
    const cell = memoryCells([8192], [4], ["memory"]);
    expect(memoryRound(cell, ["legacy", "batched", "A2"], 5).map((t) => `${t.trial}:${t.variant}`)).toEqual([
      "5:batched",
      "5:A2",
      "5:legacy",
    ]);
  });
});

describe("afterSequenceFor", () => {
  const meta = { cursorSequence: 1000, latestSequence: 2000 };
  it("maps cases to the fixture's sequences", () => {
    expect(afterSequenceFor("snapshot", meta)).toBeNull();
    expect(afterSequenceFor("resume-none", meta)).toBe(2000);
    expect(afterSequenceFor("resume-one", meta)).toBe(1999);
    expect(afterSequenceFor("resume-many", meta)).toBe(1000);
    expect(afterSequenceFor("memory", meta)).toBe(1000);
  });
});
