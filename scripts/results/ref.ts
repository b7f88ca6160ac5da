// What a variant measured by git ref is, as results.json records it.

/** What results.json records about a variant measured by git ref. */
export interface RefRecord {
  /** The revision as given ("main", "HEAD~1", "WORKTREE"). */
  ref: string;
  /** The full hash of the commit it resolved to (for WORKTREE: HEAD, the changes on top are `dirty`). */
  commit: string;
  /** True for WORKTREE with uncommitted changes. */
  dirty: boolean;
  /** sha256 of `git diff --binary` from `commit` to the measured tree, untracked files included; null if clean. */
  diffDigest: string | null;
  /** For the swapped baseline: where the named files came from. */
  swap: { from: string; commit: string; files: string[] } | null;
  /** The commit that was checked out (equals `commit` for a clean ref; a synthetic one otherwise). */
  checkoutCommit: string;
  checkout: string;
  /** How long `git worktree add` took when this checkout was made (null if not recorded). */
  checkoutMs?: number | null;
  /** True when this run reused a checkout an earlier run made. */
  checkoutCached?: boolean;
  build: string | null;
  /** How long the build took when it ran (also when this run reused it); null without --build. */
  buildMs: number | null;
  buildLog: string | null;
  /** True when this run reused an earlier build of the same checkout and command. */
  buildCached: boolean;
}
