// Telling a store's failure from the harness's: an error the database driver raised (SQLite's, or
// PostgreSQL's server or connection) is said in one line with its cause, never as a stack. Pure:
// no driver is loaded to recognise its errors.

/** Why a connection or statement failed, in one line (a refused connect is an AggregateError with no message). */
export function causeOf(e: unknown): string {
  const err = e as Error & { code?: string; errors?: Error[] };
  const text = err?.message || err?.errors?.map((x) => x.message).join("; ") || err?.code || String(e);
  return text.replace(/\s+/g, " ").trim();
}

// What pg says when its connection ends or times out under a query (no SQLSTATE on these).
const PG_CONNECTION = /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect)/;

/** Whether `e` came from the store's driver: better-sqlite3's SqliteError, or pg's server or connection. */
export function isStoreFailure(e: unknown): boolean {
  const err = e as (Error & { severity?: unknown; code?: unknown }) | null;
  if (err === null || typeof err !== "object") return false;
  if (err.name === "SqliteError") return true;
  // pg's DatabaseError: the server's severity and a five-character SQLSTATE.
  if (typeof err.severity === "string" && typeof err.code === "string" && /^[0-9A-Z]{5}$/.test(err.code)) return true;
  return typeof err.message === "string" && PG_CONNECTION.test(err.message);
}
