// Each k6 scenario file runs end to end under the k6 test double (a TEST AID: k6 cannot be
// installed here) against the real bundled server, and its handleSummary writes rows with
// completion, chunks and probe figures. The k6 driver runs the same way through a fake `k6`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload } from "../../scenarios/lib/session.js";
import { findK6, K6_NOT_FOUND, runSessionsK6 } from "../../scripts/driver/k6.js";
import type { SessionFigures } from "../../scripts/results/schema.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { smallFixture } from "./support/fixture.js";
import { runUnderDouble, writeFakeK6 } from "./support/k6-double.js";

interface Summary {
  schema: string;
  scenario: string;
  params: Record<string, unknown>;
  rows: SessionFigures[];
  figures: {
    completionMs: Record<string, number>;
    chunks: Record<string, number>;
    probeMs: Record<string, number>;
    errors: number;
  };
}

const fixture = smallFixture();
let legacy: RunningServer;
let batched: RunningServer;

beforeAll(async () => {
  [legacy, batched] = await Promise.all([
    startServer(fixture.path, ["--delivery", "legacy"]),
    startServer(fixture.path, ["--delivery", "batched"]),
  ]);
});

afterAll(async () => {
  await Promise.all([legacy?.stop(), batched?.stop()]);
  fixture.cleanup();
});

let n = 0;
async function run(script: string, env: Record<string, string>) {
  const summaryPath = join(fixture.dir, `summary-${n++}.json`);
  const result = await runUnderDouble(script, { ACK_DELAY_MS: "20", SUMMARY: summaryPath, ...env });
  const summary = JSON.parse(readFileSync(summaryPath, "utf8")) as Summary;
  return { ...result, summary };
}

function expectFigures(summary: Summary) {
  for (const row of summary.rows) {
    expect(row.error).toBeNull();
    expect(row.completionMs).toBeGreaterThanOrEqual(0);
    expect(row.probeMs).toBeGreaterThanOrEqual(0);
    expect(row.bytes).toBeGreaterThan(0);
  }
  expect(summary.figures.errors).toBe(0);
  expect(summary.figures.completionMs.count).toBe(summary.rows.length);
  expect(summary.figures.probeMs.count).toBe(summary.rows.length);
}

describe("k6 scripts under the k6 double, against the bundled server", () => {
  it("snapshot.js: legacy 2 chunks per session, two sessions", async () => {
    const { code, summary, stdout } = await run("snapshot.js", { URL: legacy.url, ITERATIONS: "2" });
    expect(code).toBe(0);
    expect(summary).toMatchObject({ schema: "catchup-bench/k6-summary@1", scenario: "snapshot" });
    expect(summary.params.token).toBe("(redacted)");
    expect(summary.rows.map((r) => r.chunks)).toEqual([2, 2]);
    expectFigures(summary);
    expect(stdout).toMatch(/catchup snapshot: 2 sessions, 0 errors/);
  });

  it.each([
    ["none", 2],
    ["one", 3],
    ["many", 4],
  ])("resume.js CASE=%s: legacy %i chunks (cursor read through server.getConfig)", async (caseName, chunks) => {
    const { code, summary } = await run("resume.js", { URL: legacy.url, CASE: caseName });
    expect(code).toBe(0);
    expect(summary.rows.map((r) => r.chunks)).toEqual([chunks]);
    expectFigures(summary);
  });

  it("resume.js with AFTER_SEQUENCE against the batched server: 1 chunk", async () => {
    const meta = batched.ready.fixture as { cursorSequence: number };
    const { code, summary } = await run("resume.js", { URL: batched.url, AFTER_SEQUENCE: String(meta.cursorSequence) });
    expect(code).toBe(0);
    expect(summary.rows.map((r) => [r.chunks, r.values])).toEqual([[1, 602]]);
    expectFigures(summary);
  });

  it("memory.js: CLIENTS concurrent sessions holding the completion ACK", async () => {
    const { code, summary } = await run("memory.js", { URL: legacy.url, CLIENTS: "3", HOLD_MS: "50" });
    expect(code).toBe(0);
    expect(summary.rows.map((r) => r.chunks)).toEqual([4, 4, 4]);
    expect(summary.params).toMatchObject({ clients: 3, holdMs: 50, case: "many" });
    expectFigures(summary);
  });

  it("reports failed sessions in the rows and the reason on stderr", async () => {
    const { code, summary, stderr } = await run("snapshot.js", { URL: legacy.url, TOKEN: "wrong" });
    expect(code).toBe(0);
    expect(summary.rows[0]).toMatchObject({ ok: false, completionMs: null, error: expect.stringMatching(/k6 log/) });
    expect(summary.figures.errors).toBe(1);
    // k6's text for a refused upgrade (gorilla's ErrBadHandshake), not Node's "Unexpected server response: 401".
    expect(stderr).toMatch(/session 0: websocket error: websocket: bad handshake/);
  });

  it("fails the run with k6's exit code 99 when a threshold from THRESHOLDS fails", async () => {
    const { code, summary } = await run("resume.js", {
      URL: legacy.url,
      CASE: "none",
      THRESHOLDS: JSON.stringify({ catchup_completion_ms: ["max<0"] }),
    });
    expect(code).toBe(99);
    expect(summary.rows[0]?.ok).toBe(true);
  });

  it("refuses bad env in the init stage with a message naming the variable", async () => {
    const result = await runUnderDouble("resume.js", { URL: legacy.url, ACK_DELAY_MS: "soon" });
    expect(result.code).toBe(107);
    expect(result.stderr).toMatch(/ACK_DELAY_MS must be an integer from 0 to 60000 \(got "soon"\)/);
  });
});

describe("the k6 double's fidelity", () => {
  it("refuses a bare package import from a scenario, as k6 would", async () => {
    const dir = join(fixture.dir, "scenarios");
    mkdirSync(dir, { recursive: true });
    const script = join(dir, "bare.js");
    writeFileSync(script, 'import WebSocket from "ws";\nexport default function () { return WebSocket; }\n');
    const result = await runUnderDouble(script, {});
    expect(result.code).toBe(107);
    expect(result.stderr).toMatch(/imports "ws": k6 resolves only k6\/\* modules and relative paths/);
  });

  it("refuses a metric created outside the init context, as k6 does", async () => {
    const dir = join(fixture.dir, "scenarios");
    mkdirSync(dir, { recursive: true });
    const script = join(dir, "late-metric.js");
    writeFileSync(script, 'import { Trend } from "k6/metrics";\nexport default function () { new Trend("late"); }\n');
    const result = await runUnderDouble(script, {});
    expect(result.stderr).toMatch(/metrics must be declared in the init context \(metric late\)/);
  });
});

describe("the k6 driver", () => {
  it("fails with a clear message when k6 is not on PATH", async () => {
    expect(findK6(fixture.dir)).toBeNull();
    const saved = process.env.PATH;
    process.env.PATH = fixture.dir;
    try {
      await expect(runSessionsK6({ clients: 1, url: legacy.url, token: DEV_TOKEN })).rejects.toThrow(K6_NOT_FOUND);
    } finally {
      process.env.PATH = saved;
    }
    expect(K6_NOT_FOUND).toBe("k6 not found on PATH; install k6 >= 1.6 or use --driver node");
  });

  it("runs memory.js through `k6 run` (a fake k6 running the double) and returns the Node driver's rows", async () => {
    const fake = writeFakeK6(fixture.dir);
    expect(findK6(`/nonexistent:${fixture.dir}`)).toBe(fake);
    const meta = legacy.ready.fixture as { latestSequence: number };
    const result = await runSessionsK6({
      clients: 2,
      url: legacy.url,
      token: DEV_TOKEN,
      ackDelayMs: 20,
      holdMs: 0,
      subscribePayload: buildSubscribePayload(SUBSCRIBE_TEMPLATE, meta.latestSequence - 1),
      k6Path: fake,
    });
    expect(result.exitCode).toBe(0);
    expect(result.rows.map((r) => [r.ok, r.chunks, r.values])).toEqual([
      [true, 3, 3],
      [true, 3, 3],
    ]);
  });

  it("carries each failed session's reason from the k6 log into its row", async () => {
    const fake = writeFakeK6(fixture.dir);
    const result = await runSessionsK6({ clients: 1, url: legacy.url, token: "wrong", k6Path: fake });
    expect(result.rows[0]?.ok).toBe(false);
    expect(result.rows[0]?.error).toMatch(/^websocket error: websocket: bad handshake/);
  });
});
