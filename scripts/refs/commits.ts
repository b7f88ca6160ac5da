// What history needs of a repository's commits: the first-parent chain of a range, and each commit's
// first parent, time, place on that chain and subject. Each a synchronous git call (refs/git.ts).
import { git, RefsError } from "./git.js";

export interface CommitInfo {
  sha: string;
  parent: string | null;
  /** Committer time, seconds since the epoch. */
  time: number;
  /** Commits on the first-parent chain up to and including this one. */
  ord: number;
  subject: string;
}

/** The full hash of a revision; a RefsError naming it when the repository has no such commit. */
export function resolveCommit(repo: string, rev: string): string {
  const sha = git(repo, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`], { allowFail: true });
  if (!sha) throw new RefsError(`${rev}: no such commit in ${repo}`);
  return sha;
}

/** A commit's facts, or null when the repository does not have it. */
export function commitInfo(repo: string, sha: string): CommitInfo | null {
  const log = git(repo, ["log", "-1", "--format=%H%x00%P%x00%ct%x00%s", sha, "--"], { allowFail: true });
  if (!log) return null;
  const [full, parents, time, subject] = log.split("\0");
  const count = git(repo, ["rev-list", "--first-parent", "--count", sha], { allowFail: true });
  return {
    sha: full as string,
    parent: parents ? (parents.split(" ")[0] ?? null) : null,
    time: Number(time),
    ord: Number(count),
    subject: subject ?? "",
  };
}

/**
 * The first-parent commits of a range, oldest first: "A..B" as git reads it (after A, up to and
 * including B); a single revision is that commit alone.
 */
export function firstParentCommits(repo: string, range: string): string[] {
  if (!range.includes("..")) return [resolveCommit(repo, range)];
  const [from, to] = range.split("..") as [string, string];
  const a = resolveCommit(repo, from === "" ? "HEAD" : from);
  const b = resolveCommit(repo, to === "" ? "HEAD" : to);
  const out = git(repo, ["rev-list", "--first-parent", "--reverse", `${a}..${b}`]);
  return out === "" ? [] : out.split("\n");
}

/** The repository's top folder holding `dir`, or null when it is not in one. */
export function repositoryRoot(dir: string): string | null {
  try {
    return git(dir, ["rev-parse", "--show-toplevel"], { allowFail: true });
  } catch {
    return null;
  }
}

/** The branch checked out in `repo`, or null (detached HEAD). */
export function currentBranch(repo: string): string | null {
  const name = git(repo, ["symbolic-ref", "--quiet", "--short", "HEAD"], { allowFail: true });
  return name || null;
}
