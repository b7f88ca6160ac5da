// Detection over a real store: record runs of a step become one alert at the step's commit, triage
// survives a recompute, and points measured against a moved anchor join the series through the
// anchor-to-anchor run instead of making a change point of their own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../../common/prng.js";
import { detectStore } from "../../scripts/history/detect.js";
import { triageCommit } from "../../scripts/history/triage.js";
import { type HistoryStore, openStore } from "../../scripts/store/open-store.js";
import { addRun, type StoredResult, type StoredRun } from "../../scripts/store/runs.js";
import { readChangePoints } from "../../scripts/store/series-rows.js";

const sha = (n: number) => n.toString(16).padStart(40, "0");
const settings = { pValue: 0.01, window: 40, permutations: 199 };

function result(cell: string, ratio: number): StoredResult {
  return {
    matrix: "latency",
    cell,
    metric: "completionMs",
    unit: "ms",
    pairs: 5,
    plannedPairs: 5,
    baseEstimate: 200,
    estimate: 200 * ratio,
    estimateLow: null,
    estimateHigh: null,
    ratio,
    ratioLow: ratio * 0.98,
    ratioHigh: ratio * 1.02,
    aaLow: null,
    aaHigh: null,
    verdict: "noise",
    outcome: null,
    reason: "synthetic",
  };
}

/** A record run of commit `n` against `anchor`: resume-many at `level`, snapshot flat, both with 1% noise. */
function record(n: number, anchor: number, level: number, seed: number): StoredRun {
  const r = mulberry32(seed);
  const noise = () => 1 + (r.next() - 0.5) * 0.02;
  return {
    uid: `run-${n}-${anchor}`,
    kind: "record",
    branch: "main",
    baseSha: sha(anchor),
    headSha: sha(n),
    anchorSha: sha(anchor),
    configDigest: "c",
    startedAt: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    finishedAt: null,
    source: null,
    interrupted: false,
    excluded: null,
    testbed: { cpuModel: "cpu", cores: 2, memoryBytes: null, node: "v20", kernel: null },
    commits: [{ sha: sha(n), parent: sha(n - 1), time: n, ord: n, subject: `commit ${n}` }],
    results: [result("resume-many", level * noise()), result("snapshot", noise())],
    samples: [],
  };
}

let dir: string;
let store: HistoryStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "history-detect-"));
  store = await openStore(join(dir, "h.sqlite"));
  // Commits 1..14 against anchor 0: resume-many 15% higher from commit 9 on.
  for (let n = 1; n <= 14; n++) await addRun(store, record(n, 0, n >= 9 ? 1.15 : 1, n));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("history detect", () => {
  it("finds the step at its commit, one alert for it, and stores the change point", async () => {
    const d = await detectStore(store, settings);
    expect(d.series).toHaveLength(2);
    expect(d.alerts.map((a) => [a.commit, a.direction, a.changes.map((c) => c.cell)])).toEqual([
      [sha(9), "regression", ["resume-many"]],
    ]);
    expect(d.alerts[0]?.stableCommit).toBe(sha(8));
    const stored = await readChangePoints(store);
    expect(stored).toMatchObject([{ cell: "resume-many", commitSha: sha(9), direction: "regression" }]);
  });

  it("keeps a triage decision across recomputes", async () => {
    await triageCommit(store, { commit: sha(9), branch: "main", state: "hidden", note: "known" });
    const d = await detectStore(store, settings);
    expect(d.alerts[0]?.triage).toMatchObject({ state: "hidden", note: "known" });
    expect(await readChangePoints(store)).toHaveLength(1);
  });

  it("links a moved anchor through the anchor-to-anchor run: no change point where the anchor moved", async () => {
    // Commit 14 (already recorded against anchor 0: the link) becomes the anchor of commits 15..22.
    for (let n = 15; n <= 22; n++) await addRun(store, record(n, 14, 1, 100 + n));
    const d = await detectStore(store, settings);
    const many = d.series.find((s) => s.series.key.cell === "resume-many");
    expect(many?.series.anchors).toEqual([sha(0), sha(14)]);
    expect(many?.series.points).toHaveLength(22);
    // Measured ~1.0 against commit 14, which is ~1.15 against anchor 0.
    expect(many?.series.points.at(-1)?.ratio).toBeGreaterThan(1.1);
    expect(d.alerts.map((a) => a.commit)).toEqual([sha(9)]);
  });
});
