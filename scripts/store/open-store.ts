// Opening the history store: one SQLite file through Kysely (better-sqlite3 underneath), migrated to
// the newest schema on open. An instrument like refs/: files here, judging and rendering elsewhere.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { LATEST_MIGRATION, migrationProvider } from "./migrations/index.js";
import type { HistoryDatabase } from "./tables.js";

/** A store that cannot be opened or used: one line naming it and why. */
export class StoreError extends Error {
  override readonly name = "StoreError";
}

export interface HistoryStore {
  db: Kysely<HistoryDatabase>;
  /** What the store is, as a user named it (a file path). */
  location: string;
  close(): Promise<void>;
}

/** Where the store is, as given: a file path (PostgreSQL URLs are for a team store, not this version). */
export function storeLocation(given: string, cwd: string): string {
  if (/^postgres(ql)?:\/\//i.test(given)) {
    throw new StoreError(
      `history ${given.replace(/\/\/[^@/]*@/, "//…@")}: PostgreSQL stores are not supported by this version; give a SQLite file path`,
    );
  }
  return resolve(cwd, given);
}

/**
 * Opens (creating when `create`) the SQLite store at `path` and migrates it to the newest schema.
 * A file that is not SQLite, or was migrated by a newer catchup-bench, is a StoreError.
 */
export async function openStore(path: string, options: { create?: boolean } = {}): Promise<HistoryStore> {
  if (options.create !== false) mkdirSync(dirname(path), { recursive: true });
  let sqlite: Database.Database;
  try {
    sqlite = new Database(path, { fileMustExist: options.create === false });
    sqlite.pragma("busy_timeout = 10000");
    sqlite.pragma("foreign_keys = ON");
  } catch (e) {
    throw new StoreError(`history ${path}: cannot open it (${(e as Error).message})`);
  }
  const db = new Kysely<HistoryDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
  const store: HistoryStore = { db, location: path, close: () => db.destroy() };
  try {
    await migrate(store);
  } catch (e) {
    await db.destroy();
    throw e;
  }
  return store;
}

async function migrate(store: HistoryStore): Promise<void> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider });
  const { error } = await migrator.migrateToLatest();
  if (!error) return;
  const message = (error as Error).message ?? String(error);
  if (/file is not a database|not a database/i.test(message)) {
    throw new StoreError(`history ${store.location}: not a SQLite file (${message})`);
  }
  if (/corrupted migrations/i.test(message)) {
    throw new StoreError(
      `history ${store.location}: written by a newer catchup-bench (its schema is past ${LATEST_MIGRATION}); upgrade catchup-bench to use it`,
    );
  }
  throw new StoreError(`history ${store.location}: cannot migrate it (${message})`);
}
