// A team's history store on PostgreSQL: a pool of `pg` connections under Kysely, every connect and
// statement bounded in time, 64-bit integers and numerics read back as numbers (as SQLite gives them).
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { HistoryDatabase } from "./tables.js";

// Long enough for a migration or a page's reads on a busy shared server; short enough that a hung
// server or a held lock ends the command with a message instead of a wait.
const CONNECT_TIMEOUT_MS = 10_000;
const STATEMENT_TIMEOUT_MS = 60_000;

const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 || oid === NUMERIC ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** A pool on `url` (not yet connected) and the Kysely over it. */
export function postgresDatabase(url: string): { db: Kysely<HistoryDatabase>; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 5_000,
    idle_in_transaction_session_timeout: STATEMENT_TIMEOUT_MS,
    max: 4,
    types,
  });
  // An idle connection the server drops must not end the process: the next query reports it.
  pool.on("error", () => {});
  return { db: new Kysely<HistoryDatabase>({ dialect: new PostgresDialect({ pool }) }), pool };
}
