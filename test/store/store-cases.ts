// The history store's behaviour on either dialect (SQLite here, PostgreSQL in postgres.test.ts): a run
// added twice is one run, commits are completed by a later add, series and resumes read back, a
// bisection's steps and the confirmations are kept, and a newer schema is refused.
import { join } from "node:path";
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { thisTestbed } from "../../scripts/history/record.js";
import { runRecord } from "../../scripts/history/run-record.js";
import type { Results } from "../../scripts/results/schema.js";
import {
  type ComparisonOutcome,
  finishBisection,
  openBisection,
  readConfirmations,
  saveConfirmation,
  saveStep,
  setConfirmationCulprits,
} from "../../scripts/store/bisections.js";
import type { HistoryStore } from "../../scripts/store/open-store.js";
import { addRun, pruneSamples, recordedCommits } from "../../scripts/store/runs.js";
import { readSeriesRows } from "../../scripts/store/series-rows.js";
import { testbedFingerprint } from "../../scripts/store/testbed.js";
import { syntheticResults } from "../report/synthetic-run.js";

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);
const sha = (c: string) => c.repeat(40);

function step(base: string, head: string, outcome: ComparisonOutcome["outcome"]): ComparisonOutcome {
  const cell = { cell: "resume-many", metric: "completionMs", outcome, ratio: 1.9, low: 1.8, high: 2.0, pairs: 8 };
  return { base, head, outcome, pairs: 8, runId: null, cells: [cell] };
}

/**
 * The cases, inside the caller's describe: `open(name)` opens (creating when new) the store called
 * `name`, the same store for the same name; `scratch()` is a directory for synthetic runs.
 */
export function storeCases(open: (name: string) => Promise<HistoryStore>, scratch: () => string): void {
  /** A synthetic run whose variants are two commits (as a --ref run records them). */
  function refRun(seed: number, head = SHA_B): Results {
    const r = syntheticResults(join(scratch(), `run-${seed}`), { seed, trials: 5, candidateFactor: 1.1 });
    r.variants[0] = { ...(r.variants[0] as Results["variants"][number]), commit: SHA_A, dirty: false };
    r.variants[1] = { ...(r.variants[1] as Results["variants"][number]), commit: head, dirty: false };
    return r;
  }

  it("adds a run once, however often it is added, and reads it back as series rows", async () => {
    const store = await open("once");
    try {
      const record = runRecord(refRun(1), { kind: "record", branch: "main", source: "r.json" });
      const first = await addRun(store, record);
      const second = await addRun(store, runRecord(refRun(1), { kind: "record", branch: "main", source: "copy.json" }));
      expect(first.added).toBe(true);
      expect(second).toEqual({ id: first.id, added: false });
      const runs = await store.db.selectFrom("run").selectAll().execute();
      expect(runs).toHaveLength(1);
      const rows = await readSeriesRows(store);
      expect(rows.length).toBe(record.results.filter((r) => r.ratio !== null).length);
      const many = rows.find((r) => r.cell === "resume-many" && r.metric === "completionMs");
      expect(many).toMatchObject({ anchorSha: SHA_A, headSha: SHA_B, branch: "main", unit: "ms" });
      expect(many?.ratio).toBeGreaterThan(1.02);
      const samples = await store.db
        .selectFrom("sample")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirst();
      expect(samples?.n).toBe(record.samples.length);
      expect(record.samples.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("completes a commit's facts when a later add knows them, never erasing them", async () => {
    const store = await open("commits");
    try {
      await addRun(store, runRecord(refRun(2), { kind: "record", branch: "main", source: null }));
      const facts = (sha: string) => ({ sha, parent: "c".repeat(40), time: 1_700_000_000, ord: 7, subject: "s" });
      await addRun(store, runRecord(refRun(3), { kind: "record", branch: "main", source: null, commitFacts: facts }));
      await addRun(store, runRecord(refRun(4), { kind: "record", branch: "main", source: null }));
      const b = await store.db.selectFrom("commit").selectAll().where("sha", "=", SHA_B).executeTakeFirstOrThrow();
      // A bigint column reads back as a number on either dialect (pg gives int8 as text unless told).
      expect(b).toMatchObject({ ord: 7, subject: "s", time: 1_700_000_000 });
    } finally {
      await store.close();
    }
  });

  it("knows which commits a series already has (what a resumed record skips)", async () => {
    const store = await open("resume");
    try {
      const record = runRecord(refRun(5), { kind: "record", branch: "main", source: null });
      await addRun(store, record);
      const key = {
        anchorSha: SHA_A,
        branch: "main",
        testbedFingerprint: testbedFingerprint(record.testbed),
        configDigest: record.configDigest,
      };
      expect([...(await recordedCommits(store, key))]).toEqual([SHA_B]);
      expect((await recordedCommits(store, { ...key, configDigest: "other" })).size).toBe(0);
      expect((await recordedCommits(store, { ...key, branch: "dev" })).size).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("prunes raw trials but keeps the results", async () => {
    const store = await open("prune");
    try {
      await addRun(store, runRecord(refRun(6), { kind: "record", branch: "main", source: null }));
      expect(await pruneSamples(store, "9999-01-01")).toBeGreaterThan(0);
      expect((await readSeriesRows(store)).length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("reopens a store without migrating it again", async () => {
    const first = await open("reopen");
    await addRun(first, runRecord(refRun(7), { kind: "record", branch: "main", source: null }));
    await first.close();
    const again = await open("reopen");
    expect((await readSeriesRows(again)).length).toBeGreaterThan(0);
    await again.close();
  });

  it("refuses a store a newer catchup-bench migrated", async () => {
    const first = await open("newer");
    // biome-ignore lint/suspicious/noExplicitAny: Kysely's own table, not in the store's types
    await (first.db as Kysely<any>)
      .insertInto("kysely_migration")
      .values({ name: "9999-future", timestamp: new Date().toISOString() })
      .execute();
    await first.close();
    await expect(open("newer")).rejects.toThrow(/written by a newer catchup-bench/);
  });
  it("reads a bisection's saved steps back in order, and the same range is the same bisection", async () => {
    const store = await open("steps");
    try {
      const key = { good: sha("a"), bad: sha("d"), branch: "main", testbed: thisTestbed(), configDigest: "x" };
      const opened = await openBisection(store, key);
      expect(opened.steps).toEqual([]);
      await saveStep(store, opened.id, 1, step(sha("a"), sha("d"), "DIFFERENT"));
      await saveStep(store, opened.id, 2, step(sha("a"), sha("b"), "SAME"));
      const again = await openBisection(store, key);
      expect(again.id).toBe(opened.id);
      expect(again.steps.map((s) => [s.head, s.outcome])).toEqual([
        [sha("d"), "DIFFERENT"],
        [sha("b"), "SAME"],
      ]);
      expect(again.steps[0]?.cells[0]?.ratio).toBe(1.9);
      await finishBisection(store, opened.id, "DIFFERENT", [sha("c")]);
      const other = await openBisection(store, { ...key, configDigest: "y" });
      expect(other.id).not.toBe(opened.id);
    } finally {
      await store.close();
    }
  });

  it("keeps rejected confirmations beside confirmed ones, with a bisect's culprits", async () => {
    const store = await open("confirm");
    try {
      const testbed = thisTestbed();
      await saveConfirmation(store, { branch: "main", testbed, comparison: step(sha("a"), sha("b"), "SAME") });
      await saveConfirmation(store, { branch: "main", testbed, comparison: step(sha("c"), sha("d"), "DIFFERENT") });
      await setConfirmationCulprits(store, {
        branch: "main",
        stableSha: sha("c"),
        commitSha: sha("d"),
        culprits: [sha("d")],
        bisectionId: (
          await openBisection(store, { good: sha("c"), bad: sha("d"), branch: "main", testbed, configDigest: "x" })
        ).id,
      });
      const read = await readConfirmations(store, "main");
      expect(read.map((c) => [c.commitSha, c.outcome, c.culprits])).toEqual([
        [sha("b"), "SAME", null],
        [sha("d"), "DIFFERENT", [sha("d")]],
      ]);
    } finally {
      await store.close();
    }
  });
}
