// `bench`'s flags for measuring versions of a server by git ref (--repo/--ref/--swap). Declared here
// for help and docs/cli.md; the rules between them live in scripts/refs/plan.ts (parseRefFlags).
import { DEFAULT_BUILD_TIMEOUT_MS, DEFAULT_KEEP_CHECKOUTS, WORKTREE } from "../refs/checkout-plan.js";
import type { OptionTable } from "./spec.js";

export const REFS_OPTIONS = (group: string) =>
  ({
    repo: {
      type: "string",
      describe: "git repository of the server to measure at several revisions (with --ref and --start)",
      group,
    },
    ref: {
      type: "string",
      repeatable: true,
      describe: `NAME=REV, repeatable, first is the baseline; REV a git revision or ${WORKTREE} (uncommitted changes included)`,
      group,
    },
    build: {
      type: "string",
      describe:
        "build command run once per commit in a clean checkout of its own, cached by commit and command (e.g. 'npm ci && npm run build')",
      group,
    },
    start: {
      type: "string",
      describe: "start command run in each checkout; {port}, {db} and {state} are filled in (as in --target)",
      group,
    },
    "build-timeout-ms": {
      type: "int",
      min: 1000,
      max: 86_400_000,
      defaultText: String(DEFAULT_BUILD_TIMEOUT_MS),
      describe: "a build that has not finished by then fails, ms",
      group,
    },
    "keep-checkouts": {
      type: "int",
      min: 1,
      max: 1000,
      defaultText: String(DEFAULT_KEEP_CHECKOUTS),
      describe:
        "checkouts (with their builds) the repository's cache keeps; once this run's are ready, the least recently used others are removed (never one another live run uses)",
      group,
    },
    "checkout-cache-gb": {
      type: "number",
      min: 0.001,
      max: 1_000_000,
      defaultText: "half the free disk plus the cache",
      describe:
        "bytes (in GB, 10^9) the cache's checkouts may hold; once this run's are ready, the least recently used others are removed (never one another live run uses)",
      group,
    },
    "clean-checkouts": {
      type: "boolean",
      describe:
        "with --repo only: remove the repository's cached checkouts, builds and logs (not those a live run uses), print what was removed and the space freed, and exit",
      group,
    },
    "swap-from": {
      type: "string",
      describe: "[NAME=]REV: the baseline is the one --ref's tree with only the --swap files taken from REV",
      group,
    },
    swap: {
      type: "string",
      repeatable: true,
      describe: "files (repository-relative) the baseline takes from --swap-from; repeatable or comma-separated",
      group,
    },
  }) as const satisfies OptionTable;
