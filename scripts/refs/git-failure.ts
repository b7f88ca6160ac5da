// What a failing git command says to the user: git's own last stderr lines (its first line is often
// only progress, e.g. "Preparing worktree (detached HEAD …)", the cause comes after it), and for the
// failures a user can fix, what to try. Pure.
import { lastLines } from "./checkout-plan.js";

/** Lines of git's stderr shown in a failure: enough for its error and fatal lines. */
export const GIT_STDERR_LINES = 12;

/** What to try, for the failures whose cause git's words name; null when there is nothing specific to say. */
export function gitHint(stderr: string, repo: string): string | null {
  const q = JSON.stringify(repo);
  if (
    /unable to read sha1 file|unable to read [0-9a-f]{7,}|missing (blob|tree|commit)|bad object|Could not reset index file|did not receive expected object|promisor remote/i.test(
      stderr,
    )
  ) {
    return `The repository lacks objects this commit needs (a shallow or partial clone, or an incomplete mirror). Try: \`git -C ${q} fsck --connectivity-only\` to list them; \`git -C ${q} fetch --refetch\` (or \`git fetch origin <commit>\`) to fetch them; in a partial clone (--filter=blob:none) git fetches missing blobs from its remote when that remote is reachable; then run again.`;
  }
  if (/No space left on device/i.test(stderr)) {
    return `The disk is full. Free space, e.g. \`catchup-bench bench --repo ${q} --clean-checkouts\` removes this repository's cached checkouts.`;
  }
  if (/index\.lock': File exists|Unable to create .*\.lock/i.test(stderr)) {
    return "Another git process holds a lock in this repository; let it finish (or remove the stale .lock file git names), then run again.";
  }
  return null;
}

/** One message: the command, its exit, git's last stderr lines, and what to try. */
export function gitFailureMessage(
  args: readonly string[],
  cwd: string,
  exit: number | string | null,
  stderr: string,
): string {
  const tail = lastLines(stderr, GIT_STDERR_LINES);
  const said = tail.length > 0 ? `; git said:\n${tail.map((l) => `  ${l}`).join("\n")}` : " (git printed nothing)";
  const hint = gitHint(stderr, cwd);
  return `git ${args.join(" ")} in ${cwd} failed (exit ${exit})${said}${hint ? `\n${hint}` : ""}`;
}
