// The history store on a real SQLite file: the cases both dialects share (store-cases.ts), and what
// is SQLite's own: a file that is not a store is refused by name, a store of the first schema is
// migrated to the newest with what it holds, and a PostgreSQL URL is taken as it is given.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationProvider } from "../../scripts/store/migrations/index.js";
import { openStore, StoreError } from "../../scripts/store/open-store.js";
import { storeLocation } from "../../scripts/store/store-url.js";
import { storeCases } from "./store-cases.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "store-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("history store (SQLite)", () => {
  storeCases(
    (name) => openStore(join(dir, `${name}.sqlite`)),
    () => dir,
  );

  it("refuses a file that is not SQLite, naming it", async () => {
    const path = join(dir, "not.sqlite");
    writeFileSync(path, "hello, this is text and not a database at all".repeat(20));
    await expect(openStore(path)).rejects.toThrow(StoreError);
    await expect(openStore(path)).rejects.toThrow(/not\.sqlite: not a SQLite file/);
  });

  it("migrates a store of the first schema, keeping what it holds", async () => {
    const path = join(dir, "old.sqlite");
    const db = new Kysely<Record<string, never>>({ dialect: new SqliteDialect({ database: new Database(path) }) });
    const first = new Migrator({ db, provider: migrationProvider });
    expect((await first.migrateTo("0001-initial")).error).toBeUndefined();
    await db
      .insertInto("commit" as never)
      .values({ sha: "a".repeat(40) } as never)
      .execute();
    await db.destroy();
    const store = await openStore(path);
    try {
      expect(await store.db.selectFrom("commit").select("sha").execute()).toEqual([{ sha: "a".repeat(40) }]);
      expect(await store.db.selectFrom("confirmation").selectAll().execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("takes a PostgreSQL URL as given and a file path from the working directory", () => {
    expect(storeLocation("postgresql://me:secret@db/history", dir)).toBe("postgresql://me:secret@db/history");
    expect(storeLocation("h.sqlite", dir)).toBe(join(dir, "h.sqlite"));
  });
});
