// `catchup-bench cache --clean` (and `bench --repo R --clean-checkouts`): removes a repository's
// checkout cache (its checkouts, builds, seeded templates, logs and state), or one revision's
// checkouts, from any working directory, except what a live run still uses, prunes git's list of
// worktrees, and says what it removed and the space freed.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../util/usage.js";
import { bytesText } from "./cache-size.js";
import { cachedKeys, openRepo, removeCheckout, sweepStale, usersElsewhere } from "./checkout.js";
import { keyCommit } from "./checkout-plan.js";
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

/**
 * Removes the cache of the repository at path (a UsageError when it is none), or with `rev` only the
 * checkouts of that revision's commit (an unknown revision is a UsageError).
 */
export function cleanCheckouts(path: string, rev: string | null = null): CleanResult {
  const repo = openRepo(path);
  const root = repo.layout.root;
  const commit = rev === null ? null : revisionCommit(repo.top, rev);
  const before = treeBytes(root);
  const removed = sweepStale(repo);
  const kept: CleanResult["kept"] = [];
  for (const key of cachedKeys(repo)) {
    if (commit !== null && keyCommit(key) !== commit) continue;
    const pids = usersElsewhere(repo, key);
    if (pids.length > 0) kept.push({ key, pids });
    else {
      removeCheckout(repo, key);
      removed.push(key);
    }
  }
  git(repo.top, ["worktree", "prune"]);
  const left = cachedKeys(repo);
  if (left.length === 0) rmSync(root, { recursive: true, force: true });
  else removeLogsExcept(join(root, "logs"), new Set(left));
  const leftBytes = treeBytes(root);
  return { root, removed, kept, freedBytes: Math.max(0, before - leftBytes), leftBytes };
}

/** The full commit `rev` names in the repository at `top`. */
function revisionCommit(top: string, rev: string): string {
  const commit = git(top, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`], {
    allowFail: true,
  });
  if (!commit) throw new UsageError(`--ref ${JSON.stringify(rev)}: no such revision in ${top}`);
  return commit;
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
