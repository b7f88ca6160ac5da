// Servers started ahead: the trial they were started for takes the same server (started once); a
// different trial gets a server of its own and the unused one is stopped; discard() stops one no
// trial took. The phase clock sums laps and recorded phases per phase.
import { describe, expect, it } from "vitest";
import { earlyStarts, type Started } from "../../scripts/bench/trial/early-start.js";
import { phaseTotals, trialClock } from "../../scripts/bench/trial/trial-timing.js";

function fakeServers() {
  const started: string[] = [];
  const stopped: string[] = [];
  const starts = earlyStarts<string, string>(
    async (trial): Promise<Started<string>> => {
      started.push(trial);
      return { server: `server-${started.length}`, error: null, copyMs: 0, startMs: 1 };
    },
    async (server) => {
      stopped.push(server);
    },
  );
  return { starts, started, stopped };
}

describe("servers started ahead", () => {
  it("gives the trial it was started for that server, started once", async () => {
    const { starts, started, stopped } = fakeServers();
    starts.ahead("t2");
    starts.ahead("t2");
    const taken = starts.take("t2");
    expect(taken.early).toBe(true);
    expect((await taken.started).server).toBe("server-1");
    expect(started).toEqual(["t2"]);
    await starts.discard();
    expect(stopped).toEqual([]);
  });
  it("starts a fresh server for another trial and stops the unused one", async () => {
    const { starts, started, stopped } = fakeServers();
    starts.ahead("t2");
    const taken = starts.take("t3");
    expect(taken.early).toBe(false);
    expect((await taken.started).server).toBe("server-2");
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(["t2", "t3"]);
    expect(stopped).toEqual(["server-1"]);
  });
  it("stops a server no trial took", async () => {
    const { starts, stopped } = fakeServers();
    starts.ahead("t9");
    await starts.discard();
    expect(stopped).toEqual(["server-1"]);
  });
});

describe("the trial clock", () => {
  it("times each phase from its lap to the next and adds recorded phases", () => {
    let now = 0;
    const clock = trialClock(() => now);
    clock.lap("baselineGc");
    now = 12.34;
    clock.lap("clients");
    now = 112.34;
    clock.record("start", 800);
    clock.lap("postGc");
    now = 120;
    expect(clock.done()).toEqual({ baselineGc: 12.3, clients: 100, start: 800, postGc: 7.7 });
  });
});

describe("the harness's share of memory trials", () => {
  it("is 1 − Σ clients / Σ windows, the windows without copy and start", () => {
    const totals = phaseTotals([
      { phaseMs: { start: 500, startWait: 100, baselineGc: 50, clients: 600, postGc: 150, stop: 100 } },
      { phaseMs: { copy: 30, start: 400, stopWait: 20, clients: 380 } },
      {},
    ]);
    expect(totals.trials).toBe(2);
    expect(totals.windowMs).toBe(1400);
    expect(totals.phases).toMatchObject({ start: 900, clients: 980, stopWait: 20 });
    expect(totals.harnessShare).toBeCloseTo(0.3, 10);
    expect(phaseTotals([]).harnessShare).toBeNull();
  });
});
