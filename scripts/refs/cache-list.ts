// `catchup-bench cache`: what a repository's checkout cache holds (each checkout with its build, its
// seeded templates, size and last use; git's list of the worktrees it registered), and the one line a
// --ref run ends with. Reading only: clean.ts removes.
import { existsSync, statSync } from "node:fs";
import { bytesText } from "./cache-size.js";
import { bytesOf, cachedKeys, openRepo, type Repo, readRecord, usersElsewhere } from "./checkout.js";
import { keyCommit, templatesDirOf } from "./checkout-plan.js";
import { treeBytes } from "./disk.js";
import { git } from "./git.js";

export interface CachedEntry {
  key: string;
  commit: string;
  /** The commit's subject line, when git still has the commit. */
  subject: string | null;
  /** The build command of its finished build; null without --build (or while it builds). */
  build: string | null;
  /** The checkout with its build, and the states seeded from it (--binding), on disk. */
  bytes: number;
  templateBytes: number;
  /** When a run last used it (ms since the epoch); null when it never finished. */
  lastUsedMs: number | null;
  /** Live runs that use it now. */
  pids: number[];
}

export interface CacheListing {
  repo: string;
  root: string;
  entries: CachedEntry[];
  /** What the cache takes on disk, all of it (checkouts, templates, builds' logs). */
  bytes: number;
  /** The worktrees `git worktree list` shows in the cache. */
  worktrees: number;
}

function entryOf(repo: Repo, key: string): CachedEntry {
  const dir = repo.layout.worktree(key);
  let lastUsedMs: number | null = null;
  try {
    lastUsedMs = statSync(repo.layout.checkoutDone(key)).mtimeMs;
  } catch {
    // unfinished: a killed run's, swept by the next run or --clean
  }
  const commit = keyCommit(key);
  return {
    key,
    commit,
    subject: git(repo.top, ["log", "-1", "--format=%s", commit, "--"], { allowFail: true }),
    build: readRecord(repo.layout.buildRecord(key))?.command ?? null,
    bytes: bytesOf(repo, key) || treeBytes(dir),
    templateBytes: treeBytes(templatesDirOf(dir)),
    lastUsedMs,
    pids: usersElsewhere(repo, key),
  };
}

/** The cache of the repository at `path` (a UsageError when it is no repository). */
export function listCache(path: string): CacheListing {
  const repo = openRepo(path);
  const root = repo.layout.root;
  const entries = cachedKeys(repo).map((key) => entryOf(repo, key));
  entries.sort((a, b) => (b.lastUsedMs ?? 0) - (a.lastUsedMs ?? 0));
  const listed = git(repo.top, ["worktree", "list", "--porcelain"], { allowFail: true }) ?? "";
  const worktrees = listed.split("\n").filter((l) => l.startsWith(`worktree ${root}/`)).length;
  return { repo: repo.top, root, entries, bytes: existsSync(root) ? treeBytes(root) : 0, worktrees };
}

/** "3 min ago", "5 h ago", "2 days ago". */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}

/** How the cache command is typed for this repository (its path quoted only when it needs it). */
export function cacheCommand(repo: string, rest = ""): string {
  const shown = /^[\w@%+=:,./-]+$/.test(repo) ? repo : `'${repo.replace(/'/g, `'\\''`)}'`;
  return `catchup-bench cache --repo ${shown}${rest}`;
}

/** What `cache` prints: one line per checkout, then the totals and how to clean. Pure. */
export function cacheText(l: CacheListing, nowMs: number): string[] {
  if (l.entries.length === 0) return [`the checkout cache of ${l.repo} is empty (${l.root}: ${bytesText(l.bytes)})`];
  const templates = l.entries.reduce((s, e) => s + e.templateBytes, 0);
  const seeded = templates > 0 ? `, ${bytesText(templates)} of it seeded templates` : "";
  const lines = [
    `checkout cache of ${l.repo}: ${l.root}, ${bytesText(l.bytes)} (checkouts with their builds${seeded})`,
  ];
  for (const e of l.entries) {
    const parts = [
      `  ${e.commit.slice(0, 12)}`,
      e.subject === null ? "(commit gone from the repository)" : JSON.stringify(e.subject),
      e.build === null ? "no build" : `build ${JSON.stringify(e.build)}`,
      bytesText(e.bytes),
      ...(e.templateBytes > 0 ? [`templates ${bytesText(e.templateBytes)}`] : []),
      e.lastUsedMs === null ? "unfinished" : `last used ${ageText(nowMs - e.lastUsedMs)}`,
      ...(e.pids.length > 0 ? [`in use by pid ${e.pids.join(", ")}`] : []),
    ];
    lines.push(parts.join("  "));
  }
  lines.push(
    `git lists ${l.worktrees} of them as detached worktrees (\`git worktree list\`); \`${cacheCommand(l.repo, " --clean")}\` removes them all and prunes that list, \`--clean --ref REV\` one revision's`,
  );
  return lines;
}

/** The line a --ref run ends with: what the cache holds, and the command that lists and cleans it. */
export function cacheLine(path: string): string {
  const l = listCache(path);
  const n = l.entries.length;
  return `refs: the checkout cache ${l.root} holds ${n} checkout${n === 1 ? "" : "s"}, ${bytesText(l.bytes)}: \`${cacheCommand(l.repo)}\` lists them, \`${cacheCommand(l.repo, " --clean")}\` removes them`;
}
