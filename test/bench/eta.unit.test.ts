// The ETA weighs each kind of trial by its own measured duration: at the latency -> memory switch it
// counts the memory trials at their own (prior, then measured) length, not at a latency trial's. While
// adaptive rounds may still join, the time left is a range from the plan alone to the plan plus every
// reserve's most, so it never counts down to seconds with rounds still to come.
import { describe, expect, it } from "vitest";
import { Eta, etaText, machineScale, PRIOR_SPREAD, priorMs, rangeText } from "../../scripts/bench/progress/eta.js";

const MEMORY = priorMs("memory:1024x1/memory");
const LATENCY = priorMs("latency");
/** A prior's range: it comes from another machine. */
const prior = (ms: number) => ({ low: ms * PRIOR_SPREAD.low, high: ms * PRIOR_SPREAD.high });

describe("weighted ETA", () => {
  it("says n/a before any trial finished, but has a range from the priors for the first line", () => {
    const eta = new Eta(["latency", "latency"]);
    expect(eta.remainingMs()).toBeNull();
    expect(eta.rangeMs()).toEqual(prior(2 * LATENCY));
  });

  it("counts the memory trials still to come at their own length, not a latency trial's", () => {
    const kinds = [...Array(10).fill("latency"), ...Array(10).fill("memory:1024x1/memory")];
    const eta = new Eta(kinds);
    for (let i = 0; i < 10; i++) eta.record(100);
    // A count of trials would say 1 s; the memory prior says ten of them at the prior's length.
    const left = eta.remainingMs();
    expect(left?.low).toBeCloseTo(prior(10 * MEMORY).low);
    expect(left?.high).toBeCloseTo(prior(10 * MEMORY).high);
    eta.record(20_000); // the first memory trial measured: the rest of that kind take its length
    expect(eta.remainingMs()?.low).toBe(9 * 20_000);
  });

  it("weighs an unmeasured memory cell by the catch-up its clients take", () => {
    // The default run's cells took 1.2-1.4 s a trial at 1 KiB x 1 and 3.9-4.5 s at 8 KiB x 4.
    expect(MEMORY).toBeGreaterThan(1_300);
    expect(MEMORY).toBeLessThan(1_600);
    expect(priorMs("memory:8192x4/snapshot")).toBeGreaterThan(2.5 * MEMORY);
    expect(priorMs("memory:8192x4/snapshot")).toBeLessThan(4_600);
    expect(priorMs("memory:1024x4/memory")).toBe(priorMs("memory:4096x1/memory"));
  });

  it("takes an unmeasured memory cell's length from its prior, as the cells measured so far ran against theirs", () => {
    const big = "memory:8192x4/memory";
    const eta = new Eta(["memory:1024x1/memory", big]);
    eta.record(2 * MEMORY); // twice its prior: the 8 KiB x 4 cell is expected at twice its own
    expect(eta.remainingMs()?.low).toBeCloseTo(2 * priorMs(big));
    eta.grow(["latency"]);
    expect(eta.remainingMs()?.low).toBeCloseTo(2 * priorMs(big) + prior(LATENCY).low);
  });

  it("keeps the adaptive rounds' most in the range until they settle, bounded by trials or budget", () => {
    const cell = "memory:1024x1/memory";
    const reserve = { kinds: Array(30).fill(cell), budgetMs: 10_000, roundKinds: Array(3).fill(cell) };
    const eta = new Eta([cell, cell, cell], { "memory rounds": reserve });
    // Before any trial: 3 planned at the prior; at most the budget (10 s) plus one round of 3 more.
    const planned = prior(3 * MEMORY);
    expect(eta.rangeMs()).toEqual({ low: planned.low, high: planned.high + 10_000 + planned.high });
    for (let i = 0; i < 3; i++) eta.record(2_000);
    // The plan is done, yet the range still says rounds may follow: no countdown to 0 s.
    expect(eta.remainingMs()).toEqual({ low: 0, high: 10_000 + 6_000 });
    eta.grow([cell, cell, cell], "memory rounds");
    for (let i = 0; i < 3; i++) eta.record(2_000);
    // 6 s of the budget spent by the added round: 4 s left plus one more round.
    expect(eta.remainingMs()).toEqual({ low: 0, high: 4_000 + 6_000 });
    eta.settle("memory rounds");
    expect(eta.remainingMs()).toEqual({ low: 0, high: 0 });
  });

  it("bounds a reserve by its remaining trials when they cost less than its budget", () => {
    const cell = "memory:1024x1/memory";
    const eta = new Eta([cell], { rounds: { kinds: [cell, cell], budgetMs: 600_000, roundKinds: [cell, cell] } });
    eta.record(1_000);
    expect(eta.remainingMs()).toEqual({ low: 0, high: 2_000 });
    eta.grow([cell], "rounds"); // one of the two possible trials joined: one left in the reserve
    expect(eta.remainingMs()).toEqual({ low: 1_000, high: 2_000 });
  });

  it("counts the rounds to the first look as planned, and the rest of the reserve as its most", () => {
    const cell = "memory:1024x1/memory";
    const rounds = { kinds: Array(6).fill(cell), budgetMs: 600_000, roundKinds: [cell], expected: [cell, cell] };
    const eta = new Eta([cell], { rounds });
    eta.record(1_000);
    expect(eta.expectedTrials()).toBe(2);
    // 2 expected trials of 1 s in the low end; the other 4 only in the high end.
    expect(eta.remainingMs()).toEqual({ low: 2_000, high: 6_000 });
    eta.grow([cell], "rounds");
    eta.record(1_000);
    expect(eta.expectedTrials()).toBe(1);
    expect(eta.remainingMs()).toEqual({ low: 1_000, high: 5_000 });
    // Cells that stop before the first look: what was expected of them leaves the range.
    eta.settle("rounds");
    expect(eta.remainingMs()).toEqual({ low: 0, high: 0 });
  });

  it("expects no more of a reserve than its budget allows", () => {
    const cell = "memory:1024x1/memory";
    const rounds = { kinds: Array(6).fill(cell), budgetMs: 1_000, roundKinds: [cell], expected: Array(4).fill(cell) };
    const eta = new Eta([cell], { rounds });
    eta.record(1_000);
    // The budget (1 s) plus one round (1 s) bounds the 4 s expected.
    expect(eta.remainingMs()).toEqual({ low: 2_000, high: 2_000 });
  });

  it("prints minutes and seconds, and a range only while it is one", () => {
    expect(etaText(65_000)).toBe("1m 05s");
    expect(etaText(35_400)).toBe("35s");
    expect(etaText(null)).toBe("n/a");
    expect(rangeText({ low: 310_000, high: 700_000 })).toBe("5m 10s–11m 40s");
    expect(rangeText({ low: 35_000, high: 35_400 })).toBe("35s");
  });
});

describe("the first estimate, calibrated on this machine", () => {
  it("scales the priors by the machine's speed and its load, and keeps the plan's range within 1.6x", () => {
    // As fast as the reference machine, nothing else running: the priors as they are.
    expect(machineScale({ cpuMs: 100, wallMs: 100, referenceCpuMs: 100, load1: 0, cores: 2 })).toBe(1);
    // Half as fast: twice as long.
    expect(machineScale({ cpuMs: 200, wallMs: 200, referenceCpuMs: 100, load1: 0, cores: 2 })).toBe(2);
    // Load 8 on 2 cores: a CPU-bound thread gets a quarter of a core, but a trial is partly waiting:
    // the square root of that slowdown (the default run took 1.83x at load 10 on 2 cores).
    expect(machineScale({ cpuMs: 100, wallMs: 100, referenceCpuMs: 100, load1: 8, cores: 2 })).toBe(2);
    expect(machineScale({ cpuMs: 100, wallMs: 400, referenceCpuMs: 100, load1: 0, cores: 2 })).toBe(2);
    // On a busy machine the probe's CPU time grows with the sharing: not counted twice as slowness.
    expect(machineScale({ cpuMs: 200, wallMs: 200, referenceCpuMs: 100, load1: 8, cores: 2 })).toBe(2);
    const eta = new Eta(["latency", "memory:1024x1/memory"], {}, 2);
    expect(eta.plannedMs()).toEqual(prior(2 * (LATENCY + MEMORY)));
    expect(eta.plannedMs().high / eta.plannedMs().low).toBeLessThanOrEqual(1.6);
  });
});
