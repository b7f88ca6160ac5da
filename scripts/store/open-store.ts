// Opening the history store: one SQLite file through Kysely (better-sqlite3 underneath), or a team's
// PostgreSQL database named by a URL (postgres.ts), migrated to the newest schema on open. An
// instrument like refs/: files and databases here, judging and rendering elsewhere.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { LATEST_MIGRATION, migrationProvider } from "./migrations/index.js";
import { causeOf } from "./store-failure.js";
import { isPostgresUrl, redactedUrl } from "./store-url.js";
import type { HistoryDatabase } from "./tables.js";

/** A store that cannot be opened or used: one line naming it and why. */
export class StoreError extends Error {
  override readonly name = "StoreError";
}

export interface HistoryStore {
  db: Kysely<HistoryDatabase>;
  /** What the store is, as a user named it: a file path, or a URL with its credentials left out. */
  location: string;
  close(): Promise<void>;
}

// The store this process opened last, so that a failure mid-command can name it (after its close).
let lastOpened: string | null = null;

/** The location of the store this process opened last (credentials left out), or null. */
export function lastOpenedStore(): string | null {
  return lastOpened;
}

/**
 * Opens the store at `location` (a SQLite file, created when `create`; or a PostgreSQL URL) and
 * migrates it to the newest schema. A store that cannot be reached or opened, is not SQLite, or was
 * migrated by a newer catchup-bench is a StoreError.
 */
export async function openStore(location: string, options: { create?: boolean } = {}): Promise<HistoryStore> {
  const store = isPostgresUrl(location) ? await openPostgres(location) : openSqlite(location, options);
  try {
    await migrate(store);
  } catch (e) {
    await store.close();
    throw e;
  }
  lastOpened = store.location;
  return store;
}

function openSqlite(path: string, options: { create?: boolean }): HistoryStore {
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
  return { db, location: path, close: () => db.destroy() };
}

/** Connects once to say at open, in one line, why a server cannot be used (refused, auth, no such database). */
async function openPostgres(url: string): Promise<HistoryStore> {
  const location = redactedUrl(url);
  // Loaded only for a URL: the driver's modules stay out of every run that reads a file store.
  const { postgresDatabase } = await import("./postgres.js");
  const { db, pool } = postgresDatabase(url);
  try {
    (await pool.connect()).release();
  } catch (e) {
    await db.destroy();
    throw new StoreError(`history ${location}: cannot connect (${withoutPassword(causeOf(e), url)})`);
  }
  return { db, location, close: () => db.destroy() };
}

/** `text` with the URL's password (raw or decoded) replaced, should a driver message ever quote it. */
function withoutPassword(text: string, url: string): string {
  const raw = /\/\/[^:@/]*:([^@/]*)@/.exec(url)?.[1];
  if (!raw) return text;
  let out = text.split(raw).join("…");
  try {
    const decoded = decodeURIComponent(raw);
    if (decoded) out = out.split(decoded).join("…");
  } catch {
    // A password that is not valid percent-encoding appears only raw.
  }
  return out;
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
  throw new StoreError(`history ${store.location}: cannot migrate it (${causeOf(error)})`);
}
