// A store's failure mid-command is one line and exit 3; any other error is the harness's and is
// thrown on (shown whole). Real driver errors: better-sqlite3's on an in-memory database, pg's
// DatabaseError as its protocol parser builds it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { storeFailures } from "../../scripts/commands/history-run.js";
import { openStore } from "../../scripts/store/open-store.js";
import { causeOf, isStoreFailure } from "../../scripts/store/store-failure.js";

function sqliteError(): unknown {
  const db = new Database(":memory:");
  try {
    db.prepare("select * from nowhere").all();
  } catch (e) {
    return e;
  } finally {
    db.close();
  }
  throw new Error("expected SQLite to refuse the statement");
}

function pgError(): unknown {
  const e = new pg.DatabaseError("terminating connection due to administrator command", 100, "error");
  e.severity = "FATAL";
  e.code = "57P01";
  return e;
}

const lines = () => {
  const err: string[] = [];
  return { err, io: { cwd: "/", env: {}, out: () => undefined, err: (t: string) => err.push(t) } };
};

describe("store failures", () => {
  it("knows the drivers' errors and nothing else", () => {
    expect(isStoreFailure(sqliteError())).toBe(true);
    expect(isStoreFailure(pgError())).toBe(true);
    expect(isStoreFailure(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isStoreFailure(new Error("Cannot read properties of undefined"))).toBe(false);
    expect(isStoreFailure(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(isStoreFailure(null)).toBe(false);
    expect(isStoreFailure("SqliteError")).toBe(false);
  });

  it("ends the command in one line with exit 3 for a store's error", async () => {
    const { err, io } = lines();
    expect(await storeFailures(() => Promise.reject(sqliteError()), io)).toBe(3);
    expect(err.join("")).toBe("catchup-bench: the history store failed: no such table: nowhere; no result\n");
  });

  it("names the store the command opened", async () => {
    const dir = mkdtempSync(join(tmpdir(), "store-failure-"));
    try {
      const path = join(dir, "history.sqlite");
      await (await openStore(path)).close();
      const { err, io } = lines();
      expect(await storeFailures(() => Promise.reject(sqliteError()), io)).toBe(3);
      expect(err.join("")).toBe(`catchup-bench: the history store ${path} failed: no such table: nowhere; no result\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("throws any other error on, whole", async () => {
    const { err, io } = lines();
    const bug = new TypeError("a bug of the harness");
    await expect(storeFailures(() => Promise.reject(bug), io)).rejects.toBe(bug);
    expect(err).toEqual([]);
  });

  it("says a cause in one line, also of an error without a message", () => {
    expect(causeOf(new Error("a\n  b"))).toBe("a b");
    expect(causeOf(new AggregateError([new Error("x"), new Error("y")]))).toBe("x; y");
    expect(causeOf(Object.assign(new Error(""), { code: "ECONNRESET" }))).toBe("ECONNRESET");
  });
});
