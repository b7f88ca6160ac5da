// scenarios/storm.js under the k6 test double (TEST AID: k6 cannot be installed here) against the
// real bundled server: CLIENTS sessions arrive over RAMP_MS through its arrival-rate executor, the
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

describe("storm.js under the k6 double", () => {
  it("runs CLIENTS arrivals, resumes and cold snapshots interleaved by RESUME_RATIO", async () => {
    const summaryPath = join(fixture.dir, "storm-summary.json");
    const { code, stderr } = await runUnderDouble("storm.js", {
      URL: legacy.url,
      CLIENTS: "6",
      RAMP_MS: "300",
      RESUME_RATIO: "0.5",
      ACK_DELAY_MS: "10",
      HOLD_MS: "20",
      SUMMARY: summaryPath,
    });
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as {
      scenario: string;
      params: Record<string, unknown>;
      rows: SessionFigures[];
      figures: { errors: number };
    };
    expect(summary.scenario).toBe("storm");
    expect(summary.params).toMatchObject({ clients: 6, rampMs: 300, resumeRatio: 0.5 });
    expect(summary.rows).toHaveLength(6);
    for (const row of summary.rows) expect(row.error).toBeNull();
    expect(summary.figures.errors).toBe(0);
    // Legacy: a cold snapshot takes 2 chunks, a resume from the fixture's cursor 4; odd sessions resume.
    expect(summary.rows.map((r) => r.chunks)).toEqual([2, 4, 2, 4, 2, 4]);
  });

  it("refuses a RESUME_RATIO outside 0..1 with one line", async () => {
    const { code, stderr } = await runUnderDouble("storm.js", { URL: legacy.url, RESUME_RATIO: "1.5" });
    expect(code).toBe(107);
    expect(stderr).toMatch(/RESUME_RATIO must be a number from 0 to 1 \(got "1\.5"\)/);
  });
});
