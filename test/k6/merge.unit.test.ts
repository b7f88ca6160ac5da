// Merging per-runner k6 summaries: each session taken from the runner that ran it, distributions
// recomputed from rows, totals summed, what cannot combine said, and inputs that are not one run refused.
import { describe, expect, it } from "vitest";
import type { SessionResult } from "../../scenarios/lib/session.js";
import { renderMergedHtml } from "../../scripts/report/merge/merged-html.js";
import {
  asRunnerSummary,
  MergeInputError,
  mergeSummaries,
  type NamedSummary,
  type RunnerSummary,
  renderMergedMarkdown,
} from "../../scripts/report/merge/merged-report.js";
import { rowWhere, tableUnder } from "../support/table.js";

const NOT_RUN: SessionResult = {
  ok: false,
  completionMs: null,
  firstChunkMs: null,
  chunks: 0,
  values: 0,
  bytes: 0,
  probeMs: null,
  error: "session did not run",
};

function okRow(completionMs: number, probeMs: number): SessionResult {
  return {
    ok: true,
    completionMs,
    firstChunkMs: completionMs / 2,
    chunks: 2,
    values: 3,
    bytes: 100,
    probeMs,
    error: null,
  };
}

function runner(rows: SessionResult[], extra: Partial<RunnerSummary> = {}): RunnerSummary {
  const ran = rows.filter((r) => r.error !== "session did not run");
  const completions = ran.flatMap((r) => (r.completionMs === null ? [] : [r.completionMs]));
  return {
    schema: "catchup-bench/k6-summary@1",
    scenario: "scaleout",
    sessions: rows.length,
    rows,
    figures: {
      completionMs: {
        count: completions.length,
        min: Math.min(...completions),
        max: Math.max(...completions),
        avg: completions.reduce((a, b) => a + b, 0) / completions.length,
        med: 999,
      },
      probeMs: null,
      errors: ran.filter((r) => !r.ok).length,
    },
    ...extra,
  };
}

const failed: SessionResult = { ...NOT_RUN, error: "session failed (the reason is in the k6 log)" };
const a: NamedSummary = { source: "runner-1", summary: runner([okRow(10, 1), okRow(20, 2), NOT_RUN, NOT_RUN]) };
const b: NamedSummary = { source: "runner-2", summary: runner([NOT_RUN, NOT_RUN, okRow(30, 3), failed]) };

describe("mergeSummaries", () => {
  it("takes each session from the runner that ran it and sums the totals", () => {
    const m = mergeSummaries([a, b]);
    expect(m.rows.map((r) => [r.session, r.runner, r.completionMs])).toEqual([
      [0, "runner-1", 10],
      [1, "runner-1", 20],
      [2, "runner-2", 30],
      [3, "runner-2", null],
    ]);
    expect(m.totals).toEqual({ ran: 4, ok: 3, failed: 1, didNotRun: 0, errors: 1 });
  });

  it("recomputes distributions from the rows, never from the runners' medians", () => {
    const m = mergeSummaries([a, b]);
    expect(m.completion).toMatchObject({ count: 3, min: 10, median: 20, max: 30 });
    expect(m.probe).toMatchObject({ count: 3, median: 2 });
    // Count, min, max and mean combine exactly across runners.
    expect(m.allSessions).toEqual({ count: 3, min: 10, max: 30, mean: 20 });
  });

  it("notes that thresholds were per runner, and what is missing", () => {
    const m = mergeSummaries([a]);
    expect(m.notes.join(" ")).toMatch(/Thresholds were evaluated by each runner/);
    expect(m.totals.didNotRun).toBe(2);
    expect(m.notes.join(" ")).toMatch(/2 sessions appear in no runner's summary/);
    const md = renderMergedMarkdown(mergeSummaries([a, b]));
    expect(md).toMatch(/^# k6 distributed run: scaleout, 2 runners/);
    expect(md).toMatch(/\| completion \| 3 \| 10\.0 \| 20\.0 \|/);
    expect(md).toMatch(/\| 2 \| runner-2 \| yes \| 30\.0 \|/);
  });

  it("shows every session figure in merged.md and merged.html: the study's timer (acknowledged) and the first ACK too", () => {
    const timed = (r: SessionResult, acknowledgedMs: number, firstAckMs: number) => ({
      ...r,
      acknowledgedMs,
      firstAckMs,
    });
    const rows = [timed(okRow(10, 1), 110, 105), timed(okRow(20, 2), 120.25, 110), failed, NOT_RUN];
    const m = mergeSummaries([{ source: "runner-1", summary: runner(rows) }]);
    for (const [text, heading] of [
      [renderMergedMarkdown(m), "## Sessions"],
      [renderMergedHtml(m, null), "<h2>Sessions"],
    ] as const) {
      const sessions = tableUnder(text, heading, "session");
      expect(rowWhere(sessions, "session", "1")).toMatchObject({
        "acknowledged ms": "120.3",
        "first chunk acknowledged ms": "110.0",
        "first chunk ms": "10.0",
        chunks: "2",
        bytes: "100",
      });
      expect(rowWhere(sessions, "session", "2")["acknowledged ms"]).toBe("n/a");
    }
  });

  it("says the run's percentiles cannot be given past the rows", () => {
    const m = mergeSummaries([{ ...a, summary: { ...a.summary, rowsTruncated: true } }, b]);
    expect(m.notes.join(" ")).toMatch(/median and percentiles cannot be given/);
  });

  it("refuses a session that ran on two runners (indices not unique)", () => {
    expect(() => mergeSummaries([a, a])).toThrow(/session 0 ran on runner-1 and runner-1/);
  });

  it("refuses summaries of different runs", () => {
    const other: NamedSummary = { source: "x", summary: { ...b.summary, scenario: "memory" } };
    expect(() => mergeSummaries([a, other])).toThrow(MergeInputError);
  });

  it("refuses a stale summary: another run's runner filling this run's gap (different run id)", () => {
    // The results volume still holds runner-2's file of the previous run; this run's runner-2 wrote none.
    const current: NamedSummary = { source: "summary-run2-a.json", summary: { ...a.summary, runId: "run2" } };
    const stale: NamedSummary = { source: "summary-run1-b.json", summary: { ...b.summary, runId: "run1" } };
    expect(() => mergeSummaries([current, stale])).toThrow(
      /summary-run1-b\.json is from run "run1", but summary-run2-a\.json is from run "run2": a stale summary of another run/,
    );
    const same: NamedSummary = { source: "summary-run2-b.json", summary: { ...b.summary, runId: "run2" } };
    expect(mergeSummaries([current, same]).totals.ran).toBe(4);
  });

  it("refuses a file that is not a runner summary, or one whose handleSummary failed", () => {
    expect(() => asRunnerSummary("f.json", { metrics: {} })).toThrow(/f\.json is not a k6 scenario summary/);
    expect(() =>
      asRunnerSummary("g.json", { schema: "catchup-bench/k6-summary@1", error: "unrecognised k6 summary data" }),
    ).toThrow(/g\.json: the runner's summary failed: unrecognised/);
  });
});
