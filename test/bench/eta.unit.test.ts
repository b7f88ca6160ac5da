// The ETA weighs each kind of trial by its own measured duration: at the latency -> memory switch it
// counts the memory trials at their own (prior, then measured) length, not at a latency trial's.
import { describe, expect, it } from "vitest";
import { Eta, etaText, PRIOR_MS } from "../../scripts/bench/eta.js";

describe("weighted ETA", () => {
  it("says n/a before any trial finished", () => {
    expect(new Eta(["latency", "latency"]).remainingMs()).toBeNull();
  });

  it("counts the memory trials still to come at their own length, not a latency trial's", () => {
    const kinds = [...Array(10).fill("latency"), ...Array(10).fill("memory:1024x1/memory")];
    const eta = new Eta(kinds);
    for (let i = 0; i < 10; i++) eta.record(1_000);
    // A count of trials would say 10 s; the memory prior says ten of them at about 9 s.
    expect(eta.remainingMs()).toBe(10 * (PRIOR_MS.memory as number));
    eta.record(20_000); // the first memory trial measured: the rest of that kind take its length
    expect(eta.remainingMs()).toBe(9 * 20_000);
  });

  it("takes an unmeasured memory cell's length from the memory cells measured so far", () => {
    const eta = new Eta(["memory:1024x1/memory", "memory:8192x4/memory"]);
    eta.record(6_000);
    expect(eta.remainingMs()).toBe(6_000);
    eta.grow(["latency"]);
    expect(eta.remainingMs()).toBe(6_000 + (PRIOR_MS.latency as number));
  });

  it("prints minutes and seconds", () => {
    expect(etaText(65_000)).toBe("1m 05s");
    expect(etaText(35_400)).toBe("35s");
    expect(etaText(null)).toBe("n/a");
  });
});
