// scenarios/storm.js under the k6 test double (TEST AID: k6 cannot be installed here) against the
// real bundled server: CLIENTS sessions arrive over RAMP_MS (every client a VU of a per-vu-iterations
// scenario, each waiting for its slot; k6 refuses an arrival-rate duration under 1 s), the
// RESUME_RATIO share resumes from the cursor read once in setup, the rest take a cold snapshot.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionFigures } from "../../scripts/results/schema.js";
import { smallFixture } from "../scenarios/support/fixture.js";
import { runUnderDouble } from "../scenarios/support/k6-double.js";
import { type RunningServer, startServer } from "../support/server.js";

const fixture = smallFixture();
let legacy: RunningServer;

beforeAll(async () => {
  legacy = await startServer(fixture.path, ["--delivery", "legacy"]);
});

afterAll(async () => {
  await legacy?.stop();
  fixture.cleanup();
});

interface StormSummary {
  scenario: string;
  params: Record<string, unknown>;
  rows: SessionFigures[];
  figures: { errors: number };
}

/** storm.js under the double with `env` (URL and SUMMARY added); its exit, stderr and summary. */
async function storm(name: string, env: Record<string, string>) {
  const summaryPath = join(fixture.dir, `${name}.json`);
  const { code, stderr } = await runUnderDouble("storm.js", { URL: legacy.url, SUMMARY: summaryPath, ...env });
  expect(code, stderr).toBe(0);
  return { stderr, summary: JSON.parse(readFileSync(summaryPath, "utf8")) as StormSummary };
}

describe("storm.js under the k6 double", () => {
  it("runs CLIENTS arrivals, resumes and cold snapshots interleaved by RESUME_RATIO", async () => {
    const { summary } = await storm("storm-ramp", {
      CLIENTS: "6",
      RAMP_MS: "300",
      RESUME_RATIO: "0.5",
      ACK_DELAY_MS: "10",
      HOLD_MS: "20",
    });
    expect(summary.scenario).toBe("storm");
    expect(summary.params).toMatchObject({ clients: 6, rampMs: 300, resumeRatio: 0.5 });
    expect(summary.rows).toHaveLength(6);
    for (const row of summary.rows) expect(row.error).toBeNull();
    expect(summary.figures.errors).toBe(0);
    // Legacy: a cold snapshot takes 2 chunks, a resume from the fixture's cursor 4; odd sessions resume.
    expect(summary.rows.map((r) => r.chunks)).toEqual([2, 4, 2, 4, 2, 4]);
  });

  it('runs "all at once" (RAMP_MS at its default 0) with every client a VU', async () => {
    const { summary } = await storm("storm-at-once", { CLIENTS: "4", ACK_DELAY_MS: "10", HOLD_MS: "20" });
    expect(summary.params).toMatchObject({ clients: 4, rampMs: 0, startAt: null });
    expect(summary.rows.map((r) => r.error)).toEqual([null, null, null, null]);
  });

  it("starts the schedule at START_AT, and says so when this instance's setup ended after it", async () => {
    const past = String(Date.now() - 60_000);
    const { stderr, summary } = await storm("storm-start-at", {
      CLIENTS: "2",
      START_AT: past,
      ACK_DELAY_MS: "0",
      HOLD_MS: "0",
    });
    expect(stderr).toMatch(/storm: START_AT passed \d+ ms before this instance's setup ended; its arrivals start late/);
    expect(summary.params.startAt).toBe(Number(past));
    const bad = await runUnderDouble("storm.js", { URL: legacy.url, START_AT: "soon" });
    expect(bad.code).toBe(107);
    expect(bad.stderr).toMatch(
      /START_AT must be a wall-clock instant in epoch milliseconds \(13 digits\) \(got "soon"\)/,
    );
  });

  it("refuses a RESUME_RATIO outside 0..1 with one line", async () => {
    const { code, stderr } = await runUnderDouble("storm.js", { URL: legacy.url, RESUME_RATIO: "1.5" });
    expect(code).toBe(107);
    expect(stderr).toMatch(/RESUME_RATIO must be a number from 0 to 1 \(got "1\.5"\)/);
  });
});
