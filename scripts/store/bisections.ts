// Confirmations and bisections in the store: a bisection's steps are written as they are decided, so
// a killed bisection reads them back and continues; a confirmation is kept whatever its outcome.
import type { Outcome } from "../results/outcome.js";
import type { HistoryStore } from "./open-store.js";
import { testbedId } from "./runs.js";
import type { TestbedFacts } from "./testbed.js";

/** One cell and metric of a paired comparison: its outcome, median paired ratio and 95% interval. */
export interface CellOutcome {
  cell: string;
  metric: string;
  outcome: Outcome;
  ratio: number | null;
  low: number | null;
  high: number | null;
  pairs: number;
}

/** A paired comparison as decided: its outcome over the deciding cells, at `pairs` pairs per cell. */
export interface ComparisonOutcome {
  base: string;
  head: string;
  outcome: Outcome;
  pairs: number;
  /** The last run measured for it (null when no run finished). */
  runId: number | null;
  cells: CellOutcome[];
}

export interface BisectionKey {
  good: string;
  bad: string;
  branch: string;
  testbed: TestbedFacts;
  configDigest: string;
}

const testbedIdOf = (store: HistoryStore, t: TestbedFacts) => testbedId(store.db, t, new Date().toISOString());

const parseCells = (detail: string): CellOutcome[] => JSON.parse(detail) as CellOutcome[];

/** The bisection of this range (created when new) and the steps it already took, in order. */
export async function openBisection(
  store: HistoryStore,
  key: BisectionKey,
): Promise<{ id: number; steps: ComparisonOutcome[] }> {
  const testbedId = await testbedIdOf(store, key.testbed);
  const where = {
    good_sha: key.good,
    bad_sha: key.bad,
    branch: key.branch,
    testbed_id: testbedId,
    config_digest: key.configDigest,
  };
  await store.db
    .insertInto("bisection")
    .values({ ...where, status: "running", outcome: null, culprits: null, started_at: new Date().toISOString() })
    .onConflict((oc) => oc.columns(["good_sha", "bad_sha", "branch", "testbed_id", "config_digest"]).doNothing())
    .execute();
  let q = store.db.selectFrom("bisection").select("id");
  for (const [column, value] of Object.entries(where)) q = q.where(column as keyof typeof where, "=", value);
  const { id } = await q.executeTakeFirstOrThrow();
  const rows = await store.db
    .selectFrom("bisection_step")
    .selectAll()
    .where("bisection_id", "=", id)
    .orderBy("ord")
    .execute();
  const steps = rows.map((r) => ({
    base: r.base_sha,
    head: r.head_sha,
    outcome: r.outcome as Outcome,
    pairs: r.pairs,
    runId: r.run_id,
    cells: parseCells(r.detail),
  }));
  return { id, steps };
}

/** Saves a decided step (the same comparison saved again replaces it). */
export async function saveStep(store: HistoryStore, bisectionId: number, ord: number, step: ComparisonOutcome) {
  const values = {
    bisection_id: bisectionId,
    ord,
    base_sha: step.base,
    head_sha: step.head,
    outcome: step.outcome,
    pairs: step.pairs,
    run_id: step.runId,
    detail: JSON.stringify(step.cells),
    at: new Date().toISOString(),
  };
  await store.db
    .insertInto("bisection_step")
    .values(values)
    .onConflict((oc) => oc.columns(["bisection_id", "base_sha", "head_sha"]).doUpdateSet(values))
    .execute();
}

/** Marks the bisection done with its outcome and culprits (JSON of the caller's choosing). */
export async function finishBisection(store: HistoryStore, id: number, outcome: Outcome, culprits: unknown) {
  await store.db
    .updateTable("bisection")
    .set({ status: "done", outcome, culprits: JSON.stringify(culprits), finished_at: new Date().toISOString() })
    .where("id", "=", id)
    .execute();
}

export interface StoredConfirmation {
  branch: string;
  testbedId: number;
  stableSha: string;
  commitSha: string;
  outcome: Outcome;
  pairs: number;
  runId: number | null;
  cells: CellOutcome[];
  culprits: string[] | null;
  bisectionId: number | null;
  at: string;
}

/** Saves a confirmation of a change point on this testbed (replacing an earlier one of the same pair). */
export async function saveConfirmation(
  store: HistoryStore,
  c: { branch: string; testbed: TestbedFacts; comparison: ComparisonOutcome },
): Promise<void> {
  const testbedId = await testbedIdOf(store, c.testbed);
  const values = {
    branch: c.branch,
    testbed_id: testbedId,
    stable_sha: c.comparison.base,
    commit_sha: c.comparison.head,
    outcome: c.comparison.outcome,
    pairs: c.comparison.pairs,
    run_id: c.comparison.runId,
    detail: JSON.stringify(c.comparison.cells),
    culprits: null,
    bisection_id: null,
    at: new Date().toISOString(),
  };
  await store.db
    .insertInto("confirmation")
    .values(values)
    .onConflict((oc) => oc.columns(["branch", "testbed_id", "stable_sha", "commit_sha"]).doUpdateSet(values))
    .execute();
}

/** Writes a bisection's culprits onto the confirmation of the change point it started from. */
export async function setConfirmationCulprits(
  store: HistoryStore,
  c: { branch: string; stableSha: string; commitSha: string; culprits: string[]; bisectionId: number },
): Promise<void> {
  await store.db
    .updateTable("confirmation")
    .set({ culprits: JSON.stringify(c.culprits), bisection_id: c.bisectionId })
    .where("branch", "=", c.branch)
    .where("stable_sha", "=", c.stableSha)
    .where("commit_sha", "=", c.commitSha)
    .execute();
}

/** Every confirmation in the store (of one branch), oldest first. */
export async function readConfirmations(store: HistoryStore, branch?: string): Promise<StoredConfirmation[]> {
  let q = store.db.selectFrom("confirmation").selectAll();
  if (branch !== undefined) q = q.where("branch", "=", branch);
  const rows = await q.orderBy("id").execute();
  return rows.map((r) => ({
    branch: r.branch,
    testbedId: r.testbed_id,
    stableSha: r.stable_sha,
    commitSha: r.commit_sha,
    outcome: r.outcome as Outcome,
    pairs: r.pairs,
    runId: r.run_id,
    cells: parseCells(r.detail),
    culprits: r.culprits === null ? null : (JSON.parse(r.culprits) as string[]),
    bisectionId: r.bisection_id,
    at: r.at,
  }));
}
