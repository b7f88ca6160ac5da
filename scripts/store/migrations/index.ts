// Every migration of the store, in order, compiled with the rest (no files looked up at run time).
// Add one by appending it here; its name sorts after the ones before it.
import type { Migration, MigrationProvider } from "kysely";
import { down as initialDown, up as initialUp } from "./0001-initial.js";
import { down as confirmDown, up as confirmUp } from "./0002-confirm-bisect.js";

const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "0001-initial": { up: initialUp, down: initialDown },
  "0002-confirm-bisect": { up: confirmUp, down: confirmDown },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};

/** The newest schema this version knows: a store migrated past it was written by a newer catchup-bench. */
export const LATEST_MIGRATION = Object.keys(MIGRATIONS).at(-1) as string;
