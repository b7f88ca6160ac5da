// The history store on a real SQLite file: migrated on open, a run added twice is one run, commits
// are completed by a later add, and a file that is not a store (or is a newer one) is refused by name.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runRecord } from "../../scripts/history/run-record.js";
import type { Results } from "../../scripts/results/schema.js";
import { openStore, StoreError, storeLocation } from "../../scripts/store/open-store.js";
import { addRun, pruneSamples, recordedCommits } from "../../scripts/store/runs.js";
import { readSeriesRows } from "../../scripts/store/series-rows.js";
import { testbedFingerprint } from "../../scripts/store/testbed.js";
import { syntheticResults } from "../report/synthetic-run.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "store-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);

/** A synthetic run whose variants are two commits (as a --ref run records them). */
function refRun(seed: number, head = SHA_B): Results {
  const r = syntheticResults(join(dir, `run-${seed}`), { seed, trials: 5, candidateFactor: 1.1 });
  r.variants[0] = { ...(r.variants[0] as Results["variants"][number]), commit: SHA_A, dirty: false };
  r.variants[1] = { ...(r.variants[1] as Results["variants"][number]), commit: head, dirty: false };
  return r;
}

describe("history store", () => {
  it("adds a run once, however often it is added, and reads it back as series rows", async () => {
    const store = await openStore(join(dir, "once.sqlite"));
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
      expect(Number(samples?.n)).toBe(record.samples.length);
      expect(record.samples.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("completes a commit's facts when a later add knows them, never erasing them", async () => {
    const store = await openStore(join(dir, "commits.sqlite"));
    try {
      await addRun(store, runRecord(refRun(2), { kind: "record", branch: "main", source: null }));
      const facts = (sha: string) => ({ sha, parent: "c".repeat(40), time: 1_700_000_000, ord: 7, subject: "s" });
      await addRun(store, runRecord(refRun(3), { kind: "record", branch: "main", source: null, commitFacts: facts }));
      await addRun(store, runRecord(refRun(4), { kind: "record", branch: "main", source: null }));
      const b = await store.db.selectFrom("commit").selectAll().where("sha", "=", SHA_B).executeTakeFirstOrThrow();
      expect(b).toMatchObject({ ord: 7, subject: "s" });
      expect(Number(b.time)).toBe(1_700_000_000);
    } finally {
      await store.close();
    }
  });

  it("knows which commits a series already has (what a resumed record skips)", async () => {
    const store = await openStore(join(dir, "resume.sqlite"));
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
    const store = await openStore(join(dir, "prune.sqlite"));
    try {
      await addRun(store, runRecord(refRun(6), { kind: "record", branch: "main", source: null }));
      expect(await pruneSamples(store, "9999-01-01")).toBeGreaterThan(0);
      expect((await readSeriesRows(store)).length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("reopens a store without migrating it again", async () => {
    const path = join(dir, "reopen.sqlite");
    const first = await openStore(path);
    await addRun(first, runRecord(refRun(7), { kind: "record", branch: "main", source: null }));
    await first.close();
    const again = await openStore(path);
    expect((await readSeriesRows(again)).length).toBeGreaterThan(0);
    await again.close();
  });

  it("refuses a file that is not SQLite, naming it", async () => {
    const path = join(dir, "not.sqlite");
    writeFileSync(path, "hello, this is text and not a database at all".repeat(20));
    await expect(openStore(path)).rejects.toThrow(StoreError);
    await expect(openStore(path)).rejects.toThrow(/not\.sqlite: not a SQLite file/);
  });

  it("refuses a store a newer catchup-bench migrated", async () => {
    const path = join(dir, "newer.sqlite");
    (await openStore(path)).close();
    const raw = new Database(path);
    raw
      .prepare("insert into kysely_migration (name, timestamp) values (?, ?)")
      .run("9999-future", new Date().toISOString());
    raw.close();
    await expect(openStore(path)).rejects.toThrow(/written by a newer catchup-bench/);
  });

  it("says PostgreSQL stores are not this version's, without echoing a password", () => {
    expect(() => storeLocation("postgres://me:secret@db/history", dir)).toThrow(/PostgreSQL .* not supported/);
    expect(() => storeLocation("postgres://me:secret@db/history", dir)).not.toThrow(/secret/);
  });
});
