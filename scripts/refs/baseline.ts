// What `init` reads from the user's repository to pick the baseline revision: whether the folder is
// in a git repository, the remote's default branch, the branches there are, and whether a given
// baseline exists. chooseBaseline is pure; readBaseline asks git.
import { git } from "./git.js";

export interface BaselineFacts {
  /** The repository's top level; null outside a git repository (or without git). */
  top: string | null;
  /** The baseline revision the starter config compares with HEAD. */
  baseline: string;
  /** Why this one ("the remote's default branch", "given with --baseline", ...). */
  why: string;
  /** Whether it names a commit in the repository. */
  exists: boolean;
  /** The repository's branches, local then remote (short names). */
  branches: string[];
}

/** The usual names of a main line, in the order they are tried. */
const MAIN_LINES = ["main", "master"];

/**
 * The baseline: the remote's default branch (origin/HEAD points at it), else a local main or master,
 * else the remote's; null when there is none of these.
 */
export function chooseBaseline(
  remoteHead: string | null,
  branches: readonly string[],
): { baseline: string; why: string } | null {
  if (remoteHead) return { baseline: remoteHead, why: "the remote's default branch" };
  for (const name of [...MAIN_LINES, ...MAIN_LINES.map((b) => `origin/${b}`)]) {
    if (branches.includes(name)) return { baseline: name, why: `the repository's ${name} branch` };
  }
  return null;
}

/** The repository `cwd` is in and its baseline (`given`, else chosen); git failing counts as no repository. */
export function readBaseline(cwd: string, given: string | undefined): BaselineFacts {
  const ask = (args: string[]): string | null => {
    try {
      return git(cwd, args, { allowFail: true });
    } catch {
      return null; // no git on PATH: as outside a repository
    }
  };
  const top = ask(["rev-parse", "--show-toplevel"]) || null;
  const fallback = given ?? "main";
  if (top === null) {
    return { top, baseline: fallback, why: given ? "given with --baseline" : "a guess", exists: false, branches: [] };
  }
  const branches = (ask(["for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes"]) ?? "")
    .split("\n")
    .filter((b) => b !== "" && !b.endsWith("/HEAD") && b !== "origin");
  const chosen = given
    ? { baseline: given, why: "given with --baseline" }
    : (chooseBaseline(ask(["rev-parse", "--abbrev-ref", "origin/HEAD"]), branches) ?? {
        baseline: fallback,
        why: "a guess",
      });
  const exists = ask(["rev-parse", "--verify", "--quiet", "--end-of-options", `${chosen.baseline}^{commit}`]) !== null;
  return { top, ...chosen, exists, branches };
}
