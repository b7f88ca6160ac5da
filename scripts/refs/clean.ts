// `bench --repo R --clean-checkouts`: removes a repository's checkout cache (its checkouts, builds,
// logs and state) from any working directory, except what a live run still uses, and says what it
// removed and the space freed.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bytesText } from "./cache-size.js";
import { cachedKeys, openRepo, removeCheckout, sweepStale, usersElsewhere } from "./checkout.js";
import { treeBytes } from "./disk.js";
import { git } from "./git.js";

export interface CleanResult {
  root: string;
  removed: string[];
  /** Checkouts left because a live run uses them: key -> its pids. */
  kept: { key: string; pids: number[] }[];
  freedBytes: number;
  leftBytes: number;
}

/** Removes the cache of the repository at path (a UsageError when it is none). */
export function cleanCheckouts(path: string): CleanResult {
  const repo = openRepo(path);
  const root = repo.layout.root;
  const before = treeBytes(root);
  const removed = sweepStale(repo);
  const kept: CleanResult["kept"] = [];
  for (const key of cachedKeys(repo)) {
    const pids = usersElsewhere(repo, key);
    if (pids.length > 0) kept.push({ key, pids });
    else {
      removeCheckout(repo, key);
      removed.push(key);
    }
  }
  git(repo.top, ["worktree", "prune"]);
  if (kept.length === 0) rmSync(root, { recursive: true, force: true });
  else removeLogsExcept(join(root, "logs"), new Set(kept.map((k) => k.key)));
  const left = treeBytes(root);
  return { root, removed, kept, freedBytes: Math.max(0, before - left), leftBytes: left };
}

/** Build logs (<key>.log) of checkouts that are gone. */
function removeLogsExcept(dir: string, keys: ReadonlySet<string>): void {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!keys.has(name.replace(/\.log$/, ""))) rmSync(join(dir, name), { force: true });
  }
}

/** What --clean-checkouts prints. */
export function cleanText(r: CleanResult): string[] {
  const n = r.removed.length;
  const lines = [
    n === 0
      ? `no checkouts to remove in ${r.root}; ${bytesText(r.freedBytes)} freed`
      : `removed ${n} checkout${n === 1 ? "" : "s"} from ${r.root} (${r.removed.map((k) => k.slice(0, 12)).join(", ")}); ${bytesText(r.freedBytes)} freed`,
  ];
  for (const k of r.kept) {
    lines.push(`kept ${k.key.slice(0, 12)}: in use by a live run (pid ${k.pids.join(", ")})`);
  }
  if (r.kept.length > 0) lines.push(`the cache still holds ${bytesText(r.leftBytes)}`);
  return lines;
}
