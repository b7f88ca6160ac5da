// Where the history store is: --history (or `history` in the config file), else
// .catchup-bench/history.sqlite in the repository (--repo's, else the working directory's), else in
// the working directory.
import { join } from "node:path";
import { repositoryRoot } from "../refs/commits.js";
import { storeLocation } from "../store/store-url.js";

export const DEFAULT_STORE = join(".catchup-bench", "history.sqlite");

export function historyPath(given: string | undefined, cwd: string, repo?: string): string {
  if (given !== undefined) return storeLocation(given, cwd);
  const root = repositoryRoot(repo ?? cwd) ?? repo ?? cwd;
  return join(root, DEFAULT_STORE);
}
