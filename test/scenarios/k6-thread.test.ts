// scenarios/thread.js end to end under the k6 test double (a TEST AID: k6 cannot be installed here)
// against the real bundled server on a fixture with threads: the thread and its cursor are read
// through server.getConfig, legacy takes 2 chunks to the marker and batched 1.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import type { SessionFigures } from "../../scripts/results/schema.js";
import { type RunningServer, startServer } from "../support/server.js";
import { runUnderDouble } from "./support/k6-double.js";

interface Summary {
  scenario: string;
  params: Record<string, unknown>;
  rows: SessionFigures[];
  figures: { errors: number };
}

let dir: string;
let legacy: RunningServer;
let batched: RunningServer;
let meta: { threadId: string; threadCursorSequence: number; threadLatestSequence: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catchup-k6-thread-"));
  const path = generateFixture({
    projects: 30,
    scriptBytesMin: 64,
    scriptBytesMax: 64,
    scriptsPerProject: 1,
    events: 10,
    threads: 2,
    threadEvents: 40,
    seed: 3,
    out: join(dir, "fixture.sqlite"),
  }).path;
  [legacy, batched] = await Promise.all([
    startServer(path, ["--delivery", "legacy"]),
    startServer(path, ["--delivery", "batched"]),
  ]);
  meta = legacy.ready.fixture as typeof meta;
}, 60_000);

afterAll(async () => {
  await Promise.all([legacy?.stop(), batched?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function run(env: Record<string, string>) {
  const summaryPath = join(dir, `summary-${n++}.json`);
  const result = await runUnderDouble("thread.js", { ACK_DELAY_MS: "20", SUMMARY: summaryPath, ...env });
  const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as Summary;
  return { ...result, summary };
}

function expectOk(summary: Summary) {
  for (const row of summary.rows) {
    expect(row.error).toBeNull();
    expect(row.completionMs).toBeGreaterThanOrEqual(0);
    expect(row.probeMs).toBeGreaterThanOrEqual(0);
  }
  expect(summary.figures.errors).toBe(0);
}

describe("thread.js under the k6 double", () => {
  it("CASE=resume (default): the measured thread's events after its cursor; legacy 2 chunks", async () => {
    const { code, summary } = await run({ URL: legacy.url });
    expect(code).toBe(0);
    expect(summary.scenario).toBe("thread");
    expect(summary.params).toMatchObject({ subscribeTag: "orchestration.subscribeThread", case: "resume" });
    // 24 of its events after the cursor, and the marker
    expect(summary.rows.map((r) => [r.chunks, r.values])).toEqual([[2, 25]]);
    expectOk(summary);
  });

  it("CASE=snapshot, two sessions: legacy 2 chunks each, batched 1", async () => {
    const a = await run({ URL: legacy.url, CASE: "snapshot", ITERATIONS: "2" });
    expect(a.code).toBe(0);
    expect(a.summary.rows.map((r) => [r.chunks, r.values])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    expectOk(a.summary);
    const b = await run({ URL: batched.url, CASE: "snapshot" });
    expect(b.summary.rows.map((r) => [r.chunks, r.values])).toEqual([[1, 2]]);
    expectOk(b.summary);
  });

  it("THREAD_ID with AFTER_SEQUENCE skips the lookup: batched 1 chunk", async () => {
    const { code, summary } = await run({
      URL: batched.url,
      THREAD_ID: meta.threadId,
      AFTER_SEQUENCE: String(meta.threadLatestSequence),
    });
    expect(code).toBe(0);
    // no events after the high-water mark: the marker alone
    expect(summary.rows.map((r) => [r.chunks, r.values])).toEqual([[1, 1]]);
    expectOk(summary);
  });

  it("refuses a CASE it does not know in the init stage, naming the variable", async () => {
    const result = await runUnderDouble("thread.js", { URL: legacy.url, CASE: "many" });
    expect(result.code).toBe(107);
    expect(result.stderr).toMatch(/CASE must be one of snapshot, resume \(got "many"\)/);
  });
});
