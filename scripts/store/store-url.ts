// What names a store: a PostgreSQL URL (a team's database) or a SQLite file path. Apart from
// postgres.ts and open-store.ts so that naming a store loads neither the PostgreSQL driver nor the
// query layer (a bench names its store before it knows whether it reads one).
import { resolve } from "node:path";

/** A `postgres://` or `postgresql://` URL names a PostgreSQL store; anything else is a SQLite file. */
export const isPostgresUrl = (given: string): boolean => /^postgres(ql)?:\/\//i.test(given);

/** The URL as it may be printed: the user and password between `//` and `@` become `…`. */
export const redactedUrl = (url: string): string => url.replace(/\/\/[^@/]*@/, "//…@");

/** Where the store is, as given: a PostgreSQL URL as it is, else a file path from `cwd`. */
export function storeLocation(given: string, cwd: string): string {
  return isPostgresUrl(given) ? given : resolve(cwd, given);
}
