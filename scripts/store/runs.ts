// Writing a run into the store and finding runs again: one transaction per run, idempotent by its
// uid (the same run added twice is one run, also when two jobs add it at once to a shared store: the
// unique uid and `on conflict do nothing` make the later one find the first). Commits are upserted: a
// later add that knows a commit's parent, time or order fills them in. Rows another transaction may
// also write (commits, cells) are written in sorted order, so two adds wait on each other, never deadlock.
import type { Kysely, Transaction } from "kysely";
import type { HistoryStore } from "./open-store.js";
import type { HistoryDatabase, RunKind } from "./tables.js";
import { type TestbedFacts, testbedFingerprint } from "./testbed.js";

export interface CommitFacts {
  sha: string;
  parent: string | null;
  time: number | null;
  ord: number | null;
  subject: string | null;
}

/** One metric of one cell as a run judged it (a row of `result`). */
export interface StoredResult {
  matrix: "latency" | "memory";
  cell: string;
  metric: string;
  unit: string;
  pairs: number;
  plannedPairs: number;
  baseEstimate: number | null;
  estimate: number | null;
  estimateLow: number | null;
  estimateHigh: number | null;
  ratio: number | null;
  ratioLow: number | null;
  ratioHigh: number | null;
  aaLow: number | null;
  aaHigh: number | null;
  verdict: string;
  outcome: string | null;
  reason: string;
}

export interface StoredSample {
  matrix: "latency" | "memory";
  cell: string;
  metric: string;
  role: "base" | "head";
  trial: number;
  value: number;
}

/** A run as the store keeps it (history/run-record.ts makes one from a results.json). */
export interface StoredRun {
  uid: string;
  kind: RunKind;
  branch: string | null;
  baseSha: string | null;
  headSha: string | null;
  anchorSha: string | null;
  configDigest: string;
  startedAt: string;
  finishedAt: string | null;
  source: string | null;
  interrupted: boolean;
  /** Why the run is left out of series, or null. */
  excluded: string | null;
  testbed: TestbedFacts;
  commits: CommitFacts[];
  results: StoredResult[];
  samples: StoredSample[];
}

type Tx = Transaction<HistoryDatabase> | Kysely<HistoryDatabase>;

/** The testbed's id, added when new. */
export async function testbedId(tx: Tx, t: TestbedFacts, at: string): Promise<number> {
  const fingerprint = testbedFingerprint(t);
  await tx
    .insertInto("testbed")
    .values({
      fingerprint,
      cpu_model: t.cpuModel,
      cores: t.cores,
      memory_bytes: t.memoryBytes,
      node: t.node,
      kernel: t.kernel,
      first_seen: at,
    })
    .onConflict((oc) => oc.column("fingerprint").doNothing())
    .execute();
  const row = await tx
    .selectFrom("testbed")
    .select("id")
    .where("fingerprint", "=", fingerprint)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Inserts or completes a commit: known fields are never overwritten with nulls. */
export async function upsertCommit(tx: Tx, c: CommitFacts): Promise<void> {
  await tx
    .insertInto("commit")
    .values({ sha: c.sha, parent: c.parent, time: c.time, ord: c.ord, subject: c.subject })
    .onConflict((oc) =>
      oc.column("sha").doUpdateSet((eb) => ({
        parent: eb.fn.coalesce("excluded.parent", "commit.parent"),
        time: eb.fn.coalesce("excluded.time", "commit.time"),
        ord: eb.fn.coalesce("excluded.ord", "commit.ord"),
        subject: eb.fn.coalesce("excluded.subject", "commit.subject"),
      })),
    )
    .execute();
}

async function cellIds(tx: Tx, cells: readonly string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const key of cells) {
    const [matrix, name] = JSON.parse(key) as [string, string];
    await tx
      .insertInto("cell")
      .values({ matrix, name })
      .onConflict((oc) => oc.columns(["matrix", "name"]).doNothing())
      .execute();
    const row = await tx
      .selectFrom("cell")
      .select("id")
      .where("matrix", "=", matrix)
      .where("name", "=", name)
      .executeTakeFirstOrThrow();
    ids.set(key, row.id);
  }
  return ids;
}

const cellKey = (r: { matrix: string; cell: string }) => JSON.stringify([r.matrix, r.cell]);

/** Adds a run (with its commits, results and samples); returns its id and whether it was new. */
export async function addRun(
  store: HistoryStore,
  run: StoredRun,
  now = new Date(),
): Promise<{ id: number; added: boolean }> {
  return store.db.transaction().execute(async (tx) => {
    const existing = await tx.selectFrom("run").select("id").where("uid", "=", run.uid).executeTakeFirst();
    const commits = [...run.commits].sort((a, b) => (a.sha < b.sha ? -1 : a.sha > b.sha ? 1 : 0));
    for (const c of commits) await upsertCommit(tx, c);
    if (existing) return { id: existing.id, added: false };
    const at = now.toISOString();
    const testbed = await testbedId(tx, run.testbed, at);
    const inserted = await tx
      .insertInto("run")
      .values({
        uid: run.uid,
        kind: run.kind,
        branch: run.branch,
        base_sha: run.baseSha,
        head_sha: run.headSha,
        anchor_sha: run.anchorSha,
        testbed_id: testbed,
        config_digest: run.configDigest,
        started_at: run.startedAt,
        finished_at: run.finishedAt,
        source: run.source,
        interrupted: run.interrupted ? 1 : 0,
        excluded: run.excluded === null ? 0 : 1,
        exclude_reason: run.excluded,
        added_at: at,
      })
      .onConflict((oc) => oc.column("uid").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) {
      // Another add of this run committed since the check above (a shared store).
      const first = await tx.selectFrom("run").select("id").where("uid", "=", run.uid).executeTakeFirstOrThrow();
      return { id: first.id, added: false };
    }
    const { id } = inserted;
    const cells = await cellIds(tx, [...new Set([...run.results, ...run.samples].map(cellKey))].sort());
    for (const r of run.results) {
      await tx
        .insertInto("result")
        .values({
          run_id: id,
          cell_id: cells.get(cellKey(r)) as number,
          metric: r.metric,
          unit: r.unit,
          pairs: r.pairs,
          planned_pairs: r.plannedPairs,
          base_estimate: r.baseEstimate,
          estimate: r.estimate,
          estimate_low: r.estimateLow,
          estimate_high: r.estimateHigh,
          ratio: r.ratio,
          ratio_low: r.ratioLow,
          ratio_high: r.ratioHigh,
          aa_low: r.aaLow,
          aa_high: r.aaHigh,
          verdict: r.verdict,
          outcome: r.outcome,
          reason: r.reason,
        })
        .execute();
    }
    // Many small rows: inserted in batches (SQLite takes at most 32,766 bound values a statement).
    for (let i = 0; i < run.samples.length; i += 500) {
      const batch = run.samples.slice(i, i + 500).map((s) => ({
        run_id: id,
        cell_id: cells.get(cellKey(s)) as number,
        metric: s.metric,
        role: s.role,
        trial: s.trial,
        value: s.value,
      }));
      await tx.insertInto("sample").values(batch).execute();
    }
    return { id, added: true };
  });
}

/** Removes the raw trials of runs started before `before` (ISO); their results stay. Returns the rows removed. */
export async function pruneSamples(store: HistoryStore, before: string): Promise<number> {
  const r = await store.db
    .deleteFrom("sample")
    .where("run_id", "in", (eb) => eb.selectFrom("run").select("id").where("started_at", "<", before))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The commits (head_sha) that already have a finished, included record run of this series and configuration. */
export async function recordedCommits(
  store: HistoryStore,
  key: { anchorSha: string; branch: string; testbedFingerprint: string; configDigest: string },
): Promise<Set<string>> {
  const rows = await store.db
    .selectFrom("run")
    .innerJoin("testbed", "testbed.id", "run.testbed_id")
    .select("run.head_sha")
    .where("run.kind", "=", "record")
    .where("run.anchor_sha", "=", key.anchorSha)
    .where("run.branch", "=", key.branch)
    .where("testbed.fingerprint", "=", key.testbedFingerprint)
    .where("run.config_digest", "=", key.configDigest)
    .where("run.interrupted", "=", 0)
    .where("run.excluded", "=", 0)
    .execute();
  return new Set(rows.map((r) => r.head_sha).filter((s): s is string => s !== null));
}
