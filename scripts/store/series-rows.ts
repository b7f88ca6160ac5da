// Reading the store for series and detection: every included record run's results, with the commit
// each measured and its place on the first-parent chain; the change points last found; triage.
import type { HistoryStore } from "./open-store.js";
import type { TriageState } from "./tables.js";
import type { TestbedFacts } from "./testbed.js";

/** One result of one record run: a point of the series (cell, metric, testbed, branch). */
export interface SeriesRow {
  runId: number;
  testbedId: number;
  branch: string;
  anchorSha: string;
  headSha: string;
  /** Position on the first-parent chain (null when unknown: ordered by time, then by when it ran). */
  ord: number | null;
  time: number | null;
  subject: string | null;
  startedAt: string;
  matrix: string;
  cell: string;
  metric: string;
  unit: string;
  pairs: number;
  baseEstimate: number | null;
  estimate: number | null;
  ratio: number;
  ratioLow: number | null;
  ratioHigh: number | null;
  verdict: string;
}

export interface StoredTestbed extends TestbedFacts {
  id: number;
  fingerprint: string;
}

/** The results of every included, finished record run (optionally of one branch), with a ratio. */
export async function readSeriesRows(store: HistoryStore, filter: { branch?: string } = {}): Promise<SeriesRow[]> {
  let q = store.db
    .selectFrom("result")
    .innerJoin("run", "run.id", "result.run_id")
    .innerJoin("cell", "cell.id", "result.cell_id")
    .leftJoin("commit", "commit.sha", "run.head_sha")
    .select([
      "run.id as runId",
      "run.testbed_id as testbedId",
      "run.branch as branch",
      "run.anchor_sha as anchorSha",
      "run.head_sha as headSha",
      "run.started_at as startedAt",
      "commit.ord as ord",
      "commit.time as time",
      "commit.subject as subject",
      "cell.matrix as matrix",
      "cell.name as cell",
      "result.metric as metric",
      "result.unit as unit",
      "result.pairs as pairs",
      "result.base_estimate as baseEstimate",
      "result.estimate as estimate",
      "result.ratio as ratio",
      "result.ratio_low as ratioLow",
      "result.ratio_high as ratioHigh",
      "result.verdict as verdict",
    ])
    .where("run.kind", "=", "record")
    .where("run.excluded", "=", 0)
    .where("run.interrupted", "=", 0)
    .where("run.branch", "is not", null)
    .where("run.anchor_sha", "is not", null)
    .where("run.head_sha", "is not", null)
    .where("result.ratio", "is not", null);
  if (filter.branch !== undefined) q = q.where("run.branch", "=", filter.branch);
  // Within a run, in the order its results were added: PostgreSQL, unlike SQLite, returns a join's
  // rows in no particular order unless told, and series are listed in the order their rows come.
  const rows = await q.orderBy("run.id").orderBy("result.id").execute();
  return rows.map((r) => ({
    ...r,
    branch: r.branch as string,
    anchorSha: r.anchorSha as string,
    headSha: r.headSha as string,
    ratio: r.ratio as number,
    ord: r.ord === null ? null : Number(r.ord),
    time: r.time === null ? null : Number(r.time),
  }));
}

export async function readTestbeds(store: HistoryStore): Promise<StoredTestbed[]> {
  const rows = await store.db.selectFrom("testbed").selectAll().orderBy("id").execute();
  return rows.map((t) => ({
    id: t.id,
    fingerprint: t.fingerprint,
    cpuModel: t.cpu_model,
    cores: t.cores,
    memoryBytes: t.memory_bytes === null ? null : Number(t.memory_bytes),
    node: t.node,
    kernel: t.kernel,
  }));
}

/** A change point as detection found it (history/detect.ts writes them, pages read them). */
export interface StoredChangePoint {
  matrix: string;
  cell: string;
  metric: string;
  testbedId: number;
  branch: string;
  anchorSha: string;
  commitSha: string;
  stableSha: string;
  pValue: number;
  magnitude: number;
  before: number;
  after: number;
  direction: "regression" | "improvement";
}

/** Replaces every change point of the branches given with the new ones (detection recomputes them all). */
export async function replaceChangePoints(
  store: HistoryStore,
  branches: readonly string[],
  points: readonly StoredChangePoint[],
  now = new Date(),
): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    if (branches.length > 0) await tx.deleteFrom("change_point").where("branch", "in", branches).execute();
    for (const p of points) {
      const cell = await tx
        .selectFrom("cell")
        .select("id")
        .where("matrix", "=", p.matrix)
        .where("name", "=", p.cell)
        .executeTakeFirstOrThrow();
      await tx
        .insertInto("change_point")
        .values({
          cell_id: cell.id,
          metric: p.metric,
          testbed_id: p.testbedId,
          branch: p.branch,
          anchor_sha: p.anchorSha,
          commit_sha: p.commitSha,
          stable_sha: p.stableSha,
          p_value: p.pValue,
          magnitude: p.magnitude,
          before: p.before,
          after: p.after,
          direction: p.direction,
          computed_at: now.toISOString(),
        })
        .execute();
    }
  });
}

export async function readChangePoints(
  store: HistoryStore,
  filter: { branch?: string } = {},
): Promise<StoredChangePoint[]> {
  let q = store.db
    .selectFrom("change_point")
    .innerJoin("cell", "cell.id", "change_point.cell_id")
    .select([
      "cell.matrix as matrix",
      "cell.name as cell",
      "change_point.metric as metric",
      "change_point.testbed_id as testbedId",
      "change_point.branch as branch",
      "change_point.anchor_sha as anchorSha",
      "change_point.commit_sha as commitSha",
      "change_point.stable_sha as stableSha",
      "change_point.p_value as pValue",
      "change_point.magnitude as magnitude",
      "change_point.before as before",
      "change_point.after as after",
      "change_point.direction as direction",
    ]);
  if (filter.branch !== undefined) q = q.where("change_point.branch", "=", filter.branch);
  const rows = await q.orderBy("change_point.id").execute();
  return rows.map((r) => ({ ...r, direction: r.direction as StoredChangePoint["direction"] }));
}

export interface StoredTriage {
  commitSha: string;
  branch: string;
  testbedId: number;
  state: TriageState;
  note: string | null;
  at: string;
}

/** Records what a person decided about a suspect commit (replacing an earlier decision). */
export async function setTriage(store: HistoryStore, t: Omit<StoredTriage, "at">, now = new Date()): Promise<void> {
  await store.db
    .insertInto("triage")
    .values({
      commit_sha: t.commitSha,
      branch: t.branch,
      testbed_id: t.testbedId,
      state: t.state,
      note: t.note,
      at: now.toISOString(),
    })
    .onConflict((oc) =>
      oc
        .columns(["commit_sha", "branch", "testbed_id"])
        .doUpdateSet({ state: t.state, note: t.note, at: now.toISOString() }),
    )
    .execute();
}

export async function readTriage(store: HistoryStore): Promise<StoredTriage[]> {
  const rows = await store.db.selectFrom("triage").selectAll().orderBy("id").execute();
  return rows.map((r) => ({
    commitSha: r.commit_sha,
    branch: r.branch,
    testbedId: r.testbed_id,
    state: r.state,
    note: r.note,
    at: r.at,
  }));
}

/** Commits whose sha starts with `prefix` (for a triage or a --since given as a short sha). */
export async function commitsByPrefix(store: HistoryStore, prefix: string): Promise<string[]> {
  const rows = await store.db
    .selectFrom("commit")
    .select("sha")
    // Shas are lowercase hex; PostgreSQL's like is case-sensitive where SQLite's is not.
    .where("sha", "like", `${prefix.replace(/[%_]/g, "").toLowerCase()}%`)
    .execute();
  return rows.map((r) => r.sha);
}
