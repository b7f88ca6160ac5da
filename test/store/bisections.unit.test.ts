// Confirmations and bisections in the history store: a store made by the first schema is migrated to
// the second with its runs intact; a bisection's saved steps are read back in order (what a resumed
// bisect replays); confirmations are kept whatever their outcome, with the culprits a bisect found.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { thisTestbed } from "../../scripts/history/record.js";
import {
  type ComparisonOutcome,
  finishBisection,
  openBisection,
  readConfirmations,
  saveConfirmation,
  saveStep,
  setConfirmationCulprits,
} from "../../scripts/store/bisections.js";
import { migrationProvider } from "../../scripts/store/migrations/index.js";
import { openStore } from "../../scripts/store/open-store.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bisections-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (c: string) => c.repeat(40);

function step(base: string, head: string, outcome: ComparisonOutcome["outcome"]): ComparisonOutcome {
  const cell = { cell: "resume-many", metric: "completionMs", outcome, ratio: 1.9, low: 1.8, high: 2.0, pairs: 8 };
  return { base, head, outcome, pairs: 8, runId: null, cells: [cell] };
}

describe("confirmations and bisections in the store", () => {
  it("migrates a store of the first schema, keeping what it holds", async () => {
    const path = join(dir, "old.sqlite");
    const db = new Kysely<Record<string, never>>({ dialect: new SqliteDialect({ database: new Database(path) }) });
    const first = new Migrator({ db, provider: migrationProvider });
    expect((await first.migrateTo("0001-initial")).error).toBeUndefined();
    await db
      .insertInto("commit" as never)
      .values({ sha: sha("a") } as never)
      .execute();
    await db.destroy();
    const store = await openStore(path);
    try {
      expect(await store.db.selectFrom("commit").select("sha").execute()).toEqual([{ sha: sha("a") }]);
      expect(await store.db.selectFrom("confirmation").selectAll().execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("reads a bisection's saved steps back in order, and the same range is the same bisection", async () => {
    const store = await openStore(join(dir, "steps.sqlite"));
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
    const store = await openStore(join(dir, "confirm.sqlite"));
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
});
