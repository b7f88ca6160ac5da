// The `session` tag goes only on the sessions that get rows (each tag value is one time series per
// metric; k6 warns past 100k), and summary data of another shape is refused by name, not misread.
import { describe, expect, it } from "vitest";
import type { SessionResult } from "../../scenarios/lib/session.js";
import {
  assertClassicSummary,
  MAX_SESSION_ROWS,
  METRICS,
  recordSession,
  type SessionMetrics,
  summaryOutputs,
} from "../../scenarios/lib/summary.js";

function recorder() {
  const samples: Array<{ metric: string; tags: Record<string, string> }> = [];
  const metric = (name: string) => ({
    add: (_v: number, tags: Record<string, string> = {}) => {
      samples.push({ metric: name, tags: { ...tags } });
    },
  });
  const metrics = Object.fromEntries(Object.entries(METRICS).map(([k, name]) => [k, metric(name)])) as SessionMetrics;
  return { metrics, samples };
}

const ok: SessionResult = {
  ok: true,
  completionMs: 5,
  firstChunkMs: 2,
  chunks: 1,
  values: 1,
  bytes: 10,
  probeMs: 1,
  error: null,
};

describe("recordSession", () => {
  it(`tags sessions below ${MAX_SESSION_ROWS} with their index and leaves the rest untagged`, () => {
    const { metrics, samples } = recorder();
    recordSession(metrics, ok, 3);
    recordSession(metrics, ok, MAX_SESSION_ROWS - 1);
    recordSession(metrics, ok, MAX_SESSION_ROWS);
    recordSession(metrics, ok, 99_999);
    const tagged = new Set(samples.map((s) => s.tags.session ?? "none"));
    expect([...tagged].sort()).toEqual(["199", "3", "none"]);
    // Untagged sessions still count in the aggregate figures: every metric got a sample.
    expect(samples.filter((s) => s.tags.session === undefined)).toHaveLength(2 * 7);
  });

  it("keeps the series bounded: 100,000 sessions give at most 200 session tag values", () => {
    const { metrics, samples } = recorder();
    for (let i = 0; i < 100_000; i += 97) recordSession(metrics, ok, i);
    const values = new Set(samples.map((s) => s.tags.session).filter((v) => v !== undefined));
    expect(values.size).toBeLessThanOrEqual(MAX_SESSION_ROWS);
  });
});

describe("summary data of another shape", () => {
  it("is refused with the variable named", () => {
    expect(() => assertClassicSummary({ version: "x", results: {} })).toThrow(/K6_NEW_MACHINE_READABLE_SUMMARY/);
    expect(() => assertClassicSummary(undefined)).toThrow(/unrecognised k6 summary data/);
    expect(() =>
      assertClassicSummary({ metrics: { [METRICS.errors]: { type: "counter", values: { count: 0 } } } }),
    ).not.toThrow();
  });

  it("turns into a summary file that carries the error and no rows", () => {
    const out = summaryOutputs({ results: {} } as never, {
      scenario: "resume",
      sessions: 2,
      path: "s.json",
      params: {},
    });
    const body = JSON.parse(out["s.json"] as string);
    expect(body).toMatchObject({ schema: "catchup-bench/k6-summary@1", error: expect.stringMatching(/unrecognised/) });
    expect(body.rows).toBeUndefined();
  });
});
