// Load awareness, the pure part: windows from counter readings, others' CPU in cores, disturbed
// rounds per cell, the "machine busy" reason of a noise verdict, and --wait-quiet's bounded loop.
import { describe, expect, it } from "vitest";
import type { LoadSnapshot, TrialLoad } from "../../scripts/results/load-record.js";
import type { LatencyRow, MemoryRow, Results } from "../../scripts/results/schema.js";
import { parseProcStatCpu, parseTreeTicks } from "../../scripts/sampler/machine-load.js";
import {
  busyReason,
  cellLoads,
  isDisturbed,
  loadFigures,
  roundLoads,
  trialLoad,
  waitQuiet,
  withBusyReason,
} from "../../scripts/verdicts/disturbance.js";

const snap = (over: Partial<LoadSnapshot>): LoadSnapshot => ({
  t: 0,
  cores: 2,
  busyTicks: 0,
  stealTicks: 0,
  totalTicks: 0,
  ownTicks: 0,
  loadAvg1: 0,
  ...over,
});

/** A window of 1 s on 2 cores (200 ticks) where we used `own` ticks and others `other`, steal `steal`. */
const win = (own: number, other: number, steal = 0): TrialLoad =>
  trialLoad(
    snap({ busyTicks: 1000, ownTicks: 500, stealTicks: 10, totalTicks: 5000 }),
    snap({
      t: 1000,
      busyTicks: 1000 + own + other,
      ownTicks: 500 + own,
      stealTicks: 10 + steal,
      totalTicks: 5200,
      loadAvg1: 1.5,
    }),
  );

describe("others' CPU from counter readings", () => {
  it("is busy minus ours, as a share of capacity times cores", () => {
    const f = loadFigures(win(80, 100, 20));
    expect(f.otherCores).toBeCloseTo(1.0, 6);
    expect(f.stealCores).toBeCloseTo(0.2, 6);
  });
  it("is zero when only we ran, and never negative (our tree's ticks can run ahead by a tick)", () => {
    expect(loadFigures(win(150, 0)).otherCores).toBe(0);
    const l = { ...win(150, 0), ownTicks: 160 };
    expect(loadFigures(l).otherCores).toBe(0);
  });
  it("says nothing for a window shorter than a tick", () => {
    expect(loadFigures({ ...win(0, 0), totalTicks: 0 })).toEqual({ otherCores: 0, stealCores: 0 });
  });
  it("is disturbed at the threshold: others plus steal", () => {
    expect(isDisturbed({ otherCores: 0.2, stealCores: 0.05 }, 0.25)).toBe(true);
    expect(isDisturbed({ otherCores: 0.2, stealCores: 0.04 }, 0.25)).toBe(false);
  });
});

const lrow = (kase: string, variant: string, trial: number, load: TrialLoad | null): LatencyRow =>
  ({ case: kase, variant, trial, ok: true, load }) as unknown as LatencyRow;
const mrow = (variant: string, trial: number, load: TrialLoad | null): MemoryRow =>
  ({ scriptBytes: 1024, clients: 1, mode: "memory", variant, trial, ok: true, load }) as unknown as MemoryRow;

describe("disturbed rounds per cell", () => {
  // Round 1 quiet; round 2: a hog beside the candidate's trial only, 1.6 cores for a third of the cell's time.
  const latency = [
    lrow("snapshot", "a", 1, win(100, 2)),
    lrow("snapshot", "b", 1, win(100, 2)),
    lrow("snapshot", "a", 2, win(100, 2)),
    lrow("snapshot", "b", 2, win(40, 160)),
    lrow("resume-many", "a", 1, win(100, 2)),
    lrow("resume-many", "a", 2, win(100, 2)),
    lrow("resume-many", "b", 3, null),
  ];
  const aa = { latency: [lrow("snapshot", "A2", 2, win(100, 2))], memory: [] };
  const rows = { latency, memory: [mrow("a", 1, win(100, 100))], aa };

  it("sums a cell's trials of a round (the A/A copy's too) before judging", () => {
    const cells = cellLoads(rows, 0.25);
    const snapshot = cells.find((c) => c.cell === "snapshot");
    expect(snapshot?.rounds.map((r) => r.disturbed)).toEqual([false, true]);
    // (2 + 160 + 2) other ticks over 600 ticks of capacity on 2 cores
    expect(snapshot?.rounds[1]?.otherCores).toBeCloseTo((164 / 600) * 2, 6);
    expect(snapshot?.disturbed).toBe(1);
    const many = cells.find((c) => c.cell === "resume-many");
    expect(many?.rounds).toHaveLength(2); // a row without readings has no round
    expect(many?.disturbed).toBe(0);
    expect(cells.find((c) => c.matrix === "memory")?.cell).toBe("1024x1/memory");
  });
  it("records per round which cells were disturbed, and the waits", () => {
    const rounds = roundLoads(rows, 0.25, [
      { matrix: "latency", round: 2, waitedMs: 3000, settled: false, foreignCores: 1 },
    ]);
    const r2 = rounds.find((r) => r.matrix === "latency" && r.round === 2);
    expect(r2?.disturbedCells).toEqual(["snapshot"]);
    expect(r2).toMatchObject({ waitedMs: 3000, settled: false });
    expect(rounds.find((r) => r.matrix === "latency" && r.round === 1)?.disturbed).toBe(false);
    expect(rounds.find((r) => r.matrix === "memory")?.disturbed).toBe(true);
  });
  it("names a busy machine as the reason of a noise verdict, only with enough disturbed rounds", () => {
    const cells = cellLoads(rows, 0.25);
    expect(busyReason(cells.find((c) => c.cell === "snapshot"))).toMatch(/^machine busy: 1 of 2 rounds disturbed/);
    expect(busyReason(cells.find((c) => c.cell === "resume-many"))).toBeNull();
    const results = { ...rows, run: { config: { disturbedCores: 0.25 } } } as unknown as Results;
    const busy = withBusyReason(results);
    const v = { cell: "snapshot", verdict: "noise", reason: "interval spans 1.0" };
    expect(busy(v, "latency").reason).toMatch(/^interval spans 1\.0; machine busy: 1 of 2 rounds/);
    expect(busy({ ...v, verdict: "pass" }, "latency").reason).toBe("interval spans 1.0");
    expect(busy(v, "memory").reason).toBe("interval spans 1.0"); // another matrix's cell of that name
    // A higher threshold: the same readings are not disturbed.
    const calm = withBusyReason({ ...results, run: { config: { disturbedCores: 1 } } } as unknown as Results);
    expect(calm(v, "latency").reason).toBe("interval spans 1.0");
  });
});

describe("--wait-quiet", () => {
  it("returns at the first quiet window", async () => {
    let t = 0;
    const loads = [1.2, 0.9, 0.1, 2];
    const r = await waitQuiet({
      budgetMs: 10_000,
      thresholdCores: 0.25,
      now: () => t,
      sample: async () => {
        t += 1000;
        return { otherCores: loads.shift() ?? 0, stealCores: 0 };
      },
    });
    expect(r).toEqual({ waitedMs: 3000, settled: true, foreignCores: 0.1 });
  });
  it("gives up when the budget is spent, and says the machine did not settle", async () => {
    let t = 0;
    let calls = 0;
    const r = await waitQuiet({
      budgetMs: 2500,
      thresholdCores: 0.25,
      now: () => t,
      sample: async () => {
        calls++;
        t += 1000;
        return { otherCores: 0.5, stealCores: 0.1 };
      },
    });
    expect(r.settled).toBe(false);
    expect(r.waitedMs).toBe(3000);
    expect(calls).toBe(3);
  });
});

it("--wait-quiet ends at once, unsettled, when the run is stopped", async () => {
  let t = 0;
  const r = await waitQuiet({
    budgetMs: 60_000,
    thresholdCores: 0.25,
    now: () => t,
    stopped: () => t >= 2000,
    sample: async () => {
      t += 1000;
      return { otherCores: 2, stealCores: 0 };
    },
  });
  expect(r).toEqual({ waitedMs: 2000, settled: false, foreignCores: 2 });
});

describe("/proc parsers", () => {
  it("reads busy, steal and capacity from /proc/stat (guest time not counted twice)", () => {
    const text =
      "cpu  100 5 50 1000 7 1 2 9 40 0\ncpu0 50 2 25 500 3 1 1 4 20 0\ncpu1 50 3 25 500 4 0 1 5 20 0\nintr 1\n";
    expect(parseProcStatCpu(text)).toEqual({ busy: 155, steal: 9, total: 1174, cores: 2 });
    expect(parseProcStatCpu("intr 1\n")).toBeNull();
  });
  it("sums utime, stime, cutime and cstime of a stat line whose name has spaces and parens", () => {
    const stat = "42 (node (x) y) S 1 42 42 0 -1 4194304 99 0 0 0 11 12 13 14 20 0 1 0 50868 3133440 412";
    expect(parseTreeTicks(stat)).toBe(11 + 12 + 13 + 14);
  });
});
