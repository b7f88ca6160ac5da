// `cache`: lists a repository's checkout cache (the --ref runs' checkouts, builds and seeded
// templates), or removes it.
import type { CommandSpec } from "./spec.js";

export const CACHE_OPTIONS = {
  repo: {
    type: "string",
    defaultText: "catchup-bench.config.json's repo, else the repository of the working directory",
    describe: "the git repository whose cache to list or clean",
  },
  clean: {
    type: "boolean",
    default: false,
    describe:
      "remove the cached checkouts with their builds, seeded templates and logs (not those a live run uses), prune git's list of worktrees, and say the space freed",
  },
  ref: {
    type: "string",
    describe: "with --clean: remove only the checkouts of this revision (a branch, tag or commit)",
  },
} as const;

export const CACHE_COMMAND = {
  command: "cache",
  describe:
    "List the checkout cache --ref runs keep in <repo>/.git/catchup-bench (each checkout with its build, seeded templates, size and last use), or remove it with --clean",
  options: CACHE_OPTIONS,
} satisfies CommandSpec;
