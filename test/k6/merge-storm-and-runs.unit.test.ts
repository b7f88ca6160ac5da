// `report --merge` and what it is given besides scaleout summaries: the runners of a k6 storm
// (scenarios/storm.js on k6-operator) merge session by session, and runners whose parameters differ
// (another ramp or resume ratio) are not one run; a bench run's results (latency, memory, leak and
// storm rows of one harness) are refused with a line that says to render it with `report RUN_DIR`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emptySessionResult, type SessionResult } from "../../scenarios/lib/session.js";
import { readRunnerSummaries, summaryFiles } from "../../scripts/report/merge/inputs.js";
import {
  asRunnerSummary,
  MergeInputError,
  mergeSummaries,
  type RunnerSummary,
} from "../../scripts/report/merge/merged-report.js";
import { RESULTS_SCHEMA } from "../../scripts/results/schema.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-merge-runs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOT_RUN = emptySessionResult("session did not run");
const ok = (completionMs: number): SessionResult => ({
  ...emptySessionResult(null),
  ok: true,
  completionMs,
  chunks: 1,
});

/** A storm runner's summary over 4 sessions: it ran the ones in `mine`. */
function stormRunner(mine: number[], params: Record<string, unknown> = {}): RunnerSummary {
  const rows = [0, 1, 2, 3].map((i) => (mine.includes(i) ? ok(100 + i) : NOT_RUN));
  return {
    schema: "catchup-bench/k6-summary@1",
    scenario: "storm",
    sessions: 4,
    params: { clients: 4, rampMs: 1000, resumeRatio: 1, case: "many", afterSequence: null, ...params },
    rows,
    figures: { completionMs: { count: mine.length, min: 100, max: 103, avg: 101.5 }, probeMs: null, errors: 0 },
  };
}

describe("merging the runners of a k6 storm", () => {
  it("takes each session from the runner that ran it", () => {
    const merged = mergeSummaries([
      { source: "a", summary: stormRunner([0, 2]) },
      { source: "b", summary: stormRunner([1, 3]) },
    ]);
    expect(merged.scenario).toBe("storm");
    expect(merged.rows.map((r) => [r.session, r.runner, r.completionMs])).toEqual([
      [0, "a", 100],
      [1, "b", 101],
      [2, "a", 102],
      [3, "b", 103],
    ]);
    expect(merged.totals).toMatchObject({ ran: 4, ok: 4, didNotRun: 0 });
  });

  it("refuses runners whose parameters differ: another ramp is another run", () => {
    expect(() =>
      mergeSummaries([
        { source: "a", summary: stormRunner([0, 2]) },
        { source: "b", summary: stormRunner([1, 3], { rampMs: 5000 }) },
      ]),
    ).toThrow(new MergeInputError("b has rampMs=5000, but a has 1000: not one run"));
  });
});

describe("a bench run given to --merge", () => {
  const refusal =
    /is a bench run, not a k6 runner summary: .*render a bench run \(its latency, memory, leak and storm rows\) with `catchup-bench report RUN_DIR`/;
  const results = { schema: RESULTS_SCHEMA, run: {}, variants: [], latency: [], memory: [], leak: [{}], storm: [{}] };

  it("as its results.json: refused, naming the file and its schema", () => {
    expect(() => asRunnerSummary("run/results.json", results)).toThrow(refusal);
    expect(() => asRunnerSummary("run/results.json", results)).toThrow(`run/results.json (${RESULTS_SCHEMA})`);
    const file = join(dir, "results.json");
    writeFileSync(file, JSON.stringify(results));
    expect(() => readRunnerSummaries([file])).toThrow(refusal);
  });

  it("as its directory (results.json, or only results.jsonl): refused the same way", () => {
    for (const name of ["results.json", "results.jsonl"]) {
      const run = join(dir, `run-${name}`);
      mkdirSync(run);
      writeFileSync(join(run, name), "{}");
      expect(() => summaryFiles([run])).toThrow(refusal);
      expect(() => summaryFiles([run])).toThrow(`--merge ${run} is a bench run`);
    }
  });
});
