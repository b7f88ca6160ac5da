// Sequential memory rounds: a cell whose peak heap and peak RSS are DIFFERENT at the 8-pair look stops
// there ("decided"), and one whose ratios all lie within the practical floor at 6 pairs ("equivalent");
// a noisy unchanged cell stops at the 8-pair look, its answer out of reach by the cap ("futile"); a
// noisy cell with a change it may yet show gets interleaved rounds to the cap ("pairs") or until the
// budget is spent ("budget"); a cell with a failed pair gets none ("missing").
import { describe, expect, it } from "vitest";
import { emptyRow } from "../../scripts/bench/memory/memory.js";
import {
  createMemoryRounds,
  memoryCellNeeds,
  memoryRoundsReserve,
  withinFloor,
} from "../../scripts/bench/rounds/memory-rounds.js";
import { type MemoryCell, type MemoryTrial, memoryRound } from "../../scripts/bench/rounds/plan.js";
import type { ReportModel } from "../../scripts/report/model.js";
import { memoryRoundsText } from "../../scripts/report/verdict-wording.js";
import type { MemoryRow, Results } from "../../scripts/results/schema.js";

const MIB = 1024 * 1024;
const VARIANTS = ["legacy", "batched", "A2"];
const CLEAR: MemoryCell = { scriptBytes: 8192, clients: 4, mode: "memory" };
const NOISY: MemoryCell = { scriptBytes: 1024, clients: 1, mode: "memory" };
/** Noisy like NOISY, but 5% larger: UNKNOWN at 8 and 12 pairs with a fair chance of DIFFERENT by 16. */
const SLOW: MemoryCell = { scriptBytes: 1024, clients: 4, mode: "memory" };
/** No change: every ratio within 0.5% of 1, inside the default floor (1%). */
const SAME: MemoryCell = { scriptBytes: 8192, clients: 1, mode: "snapshot" };

/** A deterministic wobble in [-1, 1] per trial and variant. */
const wobble = (trial: number, variant: string) => Math.sin(trial * 7.3 + variant.length * 1.9);

function row(t: MemoryTrial, ok = true): MemoryRow {
  const noisy = t.scriptBytes === NOISY.scriptBytes;
  const same = t.mode === SAME.mode;
  const change = same ? 1 : !noisy ? 1.5 : t.clients === SLOW.clients ? 1.05 : 1;
  const factor = t.variant === "batched" ? change : 1;
  const heap = 100 * MIB * factor * (1 + (noisy ? 0.05 : same ? 0.002 : 0.005) * wobble(t.trial, t.variant));
  return {
    ...emptyRow(t, null, ""),
    ok,
    error: ok ? null : "client 1: boom",
    peakHeapBytes: heap,
    peakRssBytes: heap * 2,
    postGcHeapBytes: 20 * MIB,
  };
}

function results(): Results {
  return {
    schema: "catchup-bench/results@3",
    run: {
      startedAt: "",
      finishedAt: null,
      node: "",
      cpuModel: "",
      cores: 2,
      loadAverage: [0, 0, 0],
      gitCommit: null,
      config: { memoryTrials: 3, memorySequentialSeconds: 600 },
    },
    variants: [
      { name: "legacy", kind: "bundled", command: "", role: "baseline" },
      { name: "batched", kind: "bundled", command: "", role: "candidate" },
    ],
    latency: [],
    memory: [],
    aa: { latency: [], memory: [] },
  } as Results;
}

function add(r: Results, trials: MemoryTrial[], failed?: (t: MemoryTrial) => boolean): void {
  for (const t of trials)
    (t.variant === "A2" ? (r.aa as NonNullable<Results["aa"]>).memory : r.memory).push(row(t, !failed?.(t)));
}

/** Sequential rounds over r's cells with every variant; the clock stands still unless given. */
function roundsOf(r: Results, cells: MemoryCell[], budgetSeconds = 600, now = () => 0) {
  return createMemoryRounds({ budgetSeconds, variants: VARIANTS, cells, results: () => r, now });
}

function planned(r: Results, cells: MemoryCell[], rounds = 3): void {
  for (let round = 1; round <= rounds; round++) add(r, memoryRound(cells, VARIANTS, round));
}

describe("sequential memory rounds", () => {
  it("stops a changed cell and a hopelessly noisy one at the 8-pair look, and gives one that may yet tell rounds to the cap", () => {
    const r = results();
    planned(r, [CLEAR, NOISY, SLOW]);
    // 3 pairs are no look: every cell needs more.
    expect(memoryCellNeeds(r).get("8192x4/memory")).toBe("more");
    expect(memoryCellNeeds(r).get("1024x1/memory")).toBe("more");
    expect(memoryCellNeeds(r).get("1024x4/memory")).toBe("more");
    let clock = 0;
    const rounds = roundsOf(r, [CLEAR, NOISY, SLOW], 600, () => clock);
    const asked: MemoryTrial[][] = [];
    for (let next = rounds.more(); next.length > 0; next = rounds.more()) {
      asked.push(next);
      add(r, next);
      clock += 1000;
    }
    // Rounds 4..8 of every cell, then 9..16 of the one that may yet tell, every variant once per
    // round, the start rotated.
    const id = (t: MemoryTrial) => `${t.scriptBytes}x${t.clients}:${t.trial}:${t.variant}`;
    expect(asked.map((a) => a.map(id))).toEqual(
      [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16].map((round) =>
        memoryRound(round <= 8 ? [CLEAR, NOISY, SLOW] : [SLOW], VARIANTS, round).map(id),
      ),
    );
    const info = rounds.info();
    expect(info.cells).toEqual([
      { cell: "8192x4/memory", pairs: 8, why: "decided" },
      { cell: "1024x1/memory", pairs: 8, why: "futile" },
      { cell: "1024x4/memory", pairs: 16, why: "pairs" },
    ]);
    expect(info.spentSeconds).toBe(13);
  });

  it("stops adding rounds once the budget is spent, and says so per cell", () => {
    const r = results();
    planned(r, [NOISY]);
    let clock = 0;
    const rounds = roundsOf(r, [NOISY], 2, () => clock);
    const first = rounds.more();
    expect(first).toHaveLength(3);
    add(r, first);
    clock += 2500;
    expect(rounds.more()).toEqual([]);
    expect(rounds.info().cells).toEqual([{ cell: "1024x1/memory", pairs: 4, why: "budget" }]);
  });

  it("gives a cell with a failed pair no more rounds", () => {
    const r = results();
    add(
      r,
      [1, 2, 3].flatMap((round) => memoryRound([NOISY], VARIANTS, round)),
      (t) => t.trial === 2 && t.variant === "batched",
    );
    const rounds = roundsOf(r, [NOISY]);
    expect(rounds.more()).toEqual([]);
    expect(rounds.info().cells[0]?.why).toBe("missing");
  });

  it("stops a cell whose ratios all lie within the practical floor at 6 pairs, unless the floor is 0", () => {
    const rounds = (minEffect?: Record<string, number>) => {
      const r = results();
      if (minEffect) r.run.config = { ...r.run.config, minEffect };
      planned(r, [SAME]);
      const seq = roundsOf(r, [SAME]);
      for (let next = seq.more(); next.length > 0; next = seq.more()) add(r, next);
      return seq.info().cells;
    };
    expect(rounds()).toEqual([{ cell: "8192x1/snapshot", pairs: 6, why: "equivalent" }]);
    // Without a floor the sign test cannot stop it, nor can SAME be reached: at the first look its
    // tiny wobble leaves DIFFERENT out of reach too.
    expect(rounds({ percent: 0, bytes: 0, ms: 0 })).toEqual([{ cell: "8192x1/snapshot", pairs: 8, why: "futile" }]);
  });

  it("does not stop a cell before a guarded metric in it can be judged (the guard needs 8 pairs)", () => {
    const r = results();
    r.run.config = { ...r.run.config, ceiling: 1.03, guard: ["postGcHeapBytes"], guardMinPairs: 8 };
    planned(r, [SAME]);
    const seq = roundsOf(r, [SAME]);
    for (let next = seq.more(); next.length > 0; next = seq.more()) add(r, next);
    expect(seq.info().cells).toEqual([{ cell: "8192x1/snapshot", pairs: 8, why: "decided" }]);
  });

  it("calls ratios equivalent only when at least 6 all lie strictly within the tolerance", () => {
    const six = (x: number) => [x, x, x, x, x, x];
    expect(withinFloor(six(1.009), 0.01)).toBe(true);
    expect(withinFloor(six(0.991), 0.01)).toBe(true);
    expect(withinFloor(six(1.009).slice(1), 0.01)).toBe(false); // 5 pairs
    expect(withinFloor([...six(1.0).slice(1), 1.01], 0.01)).toBe(false); // one on the floor
    expect(withinFloor([...six(1.0).slice(1), 0.98], 0.01)).toBe(false);
  });
});

describe("the report's memory-rounds line", () => {
  it("names each cell's pairs and why it got no more", () => {
    const text = memoryRoundsText({
      memoryRounds: {
        budgetSeconds: 60,
        spentSeconds: 41.25,
        targetPairs: 8,
        cells: [
          { cell: "8192x4/memory", pairs: 6, why: "clear" },
          { cell: "1024x4/memory", pairs: 5, why: "budget" },
          { cell: "8192x1/snapshot", pairs: 6, why: "equivalent" },
        ],
      },
    } as ReportModel);
    expect(text).toBe(
      "Memory rounds (peak heap, peak RSS; up to 8 pairs per cell): budget 60 s, used 41.3 s; 8 KiB × 4, resume: 6 pairs, sufficed: all 6 ratios beyond the A/A band and 1.0 on one side (sign test p = 0.031); 1 KiB × 4, resume: 5 pairs, budget spent; 8 KiB × 1, snapshot: 6 pairs, sufficed: all 6 ratios within the practical floor (equivalence sign tests p = 0.016).",
    );
    expect(memoryRoundsText({ memoryRounds: null } as ReportModel)).toBeNull();
  });

  it("expects the rounds to the first look (8 pairs) and reserves the rest to the cap (16)", () => {
    const cells = [CLEAR, NOISY];
    const reserve = memoryRoundsReserve({ budgetSeconds: 600, variants: VARIANTS, cells, plannedTrials: 3 });
    expect(reserve.expected).toHaveLength(5 * cells.length * VARIANTS.length);
    expect(reserve.kinds).toHaveLength(13 * cells.length * VARIANTS.length);
    expect(memoryRoundsReserve({ budgetSeconds: 600, variants: VARIANTS, cells, plannedTrials: 8 }).expected).toEqual(
      [],
    );
  });
});
