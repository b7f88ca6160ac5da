// CPU pinning: the plan puts the target on the last CPU and the harness on the rest, or says why
// not; taskset really changes every thread's affinity of a live process (read back through taskset).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { affinityOf, parseCpuList, pinThreads, planPinning } from "../../scripts/bench/trial/pinning.js";

describe("the pinning plan", () => {
  it("puts the target on the last CPU and the harness on the others", () => {
    expect(planPinning([0, 1], true)).toEqual({ enabled: true, target: [1], harness: [0], tool: "taskset" });
    expect(planPinning([0, 2, 3], true)).toEqual({ enabled: true, target: [3], harness: [0, 2], tool: "taskset" });
  });
  it("says why it does not pin", () => {
    expect(planPinning([0, 1], false)).toEqual({ enabled: false, reason: "--no-pin" });
    expect(planPinning([0], true)).toEqual({ enabled: false, reason: "one CPU available" });
    expect(planPinning(null, true)).toEqual({ enabled: false, reason: "taskset not found (util-linux)" });
  });
  it("reads CPU lists with ranges", () => {
    expect(parseCpuList("0,2-4\n")).toEqual([0, 2, 3, 4]);
    expect(() => parseCpuList("zero")).toThrow(/not a CPU list/);
  });
});

describe("pinning a live process", () => {
  it("sets the affinity of every thread of a running node process", async () => {
    const mine = affinityOf(process.pid);
    if (!mine || mine.length < 2) return; // one CPU or no taskset: nothing to pin (the plan says so)
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      await once(child, "spawn");
      const last = mine.at(-1) as number;
      expect(pinThreads(child.pid as number, [last])).toBe(true);
      expect(affinityOf(child.pid as number)).toEqual([last]);
    } finally {
      child.kill("SIGKILL");
    }
  });
  it("reports a process that is gone as not pinned", () => {
    expect(pinThreads(2 ** 22 + 12345, [0])).toBe(false);
  });
});
