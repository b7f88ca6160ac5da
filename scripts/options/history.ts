// `history` subcommands' flags: the tables from which yargs, --help, docs/cli.md and validation come.
// `record`, `regressions`, `confirm` and `bisect` measure through bench, so they also take bench's measurement flags
// (HISTORY_BENCH_OPTIONS): every bench flag but those that name the variants or the run's outputs.
import { RUN_KINDS, TRIAGE_STATES } from "../store/tables.js";
import { BENCH_OPTIONS } from "./bench.js";
import type { CommandSpec, OptionTable } from "./spec.js";

const STORE_TEXT = ".catchup-bench/history.sqlite in the repository (--repo's, else the working directory's)";

const STORE = {
  history: {
    type: "string",
    defaultText: STORE_TEXT,
    describe:
      "the history store: a SQLite file (created when missing) or a postgres:// URL (a team's shared store); also `history` in the config file",
  },
  json: { type: "boolean", default: false, describe: "print what the command did as JSON on stdout" },
} as const satisfies OptionTable;

const BRANCH = {
  branch: {
    type: "string",
    defaultText: "the branch checked out in --repo, else main",
    describe: "the branch whose series this is (series are per cell, metric, testbed and branch)",
  },
} as const satisfies OptionTable;

/** Detection's settings, shared by detect and the page. */
const DETECT = {
  "p-value": {
    type: "number",
    min: 0.0001,
    max: 0.5,
    default: 0.01,
    describe: "a change point is kept when its permutation test's p-value is at most this",
  },
  window: {
    type: "int",
    min: 8,
    max: 10_000,
    default: 40,
    describe: "points per detection window (windows overlap by half); a window should hold at most one change",
  },
  permutations: {
    type: "int",
    min: 19,
    max: 10_000,
    default: 199,
    describe: "permutations per significance test (seeded: the same store gives the same change points)",
  },
} as const satisfies OptionTable;

/** The bench flags the measuring commands do not take: they choose the variants and outputs themselves. */
const NOT_PASSED = [
  "history",
  "ref",
  "swap",
  "swap-from",
  "clean-checkouts",
  "out",
  "json",
  "summary-md",
  "variants",
  "target",
];

export const HISTORY_BENCH_OPTIONS = Object.fromEntries(
  Object.entries(BENCH_OPTIONS).filter(([flag]) => !NOT_PASSED.includes(flag)),
) as OptionTable;

const BENCH_NOTE =
  "Also takes bench's measurement flags (cases, trials, memory, protocol, --repo, --build, --start, --binding, --config, ...: see `bench`), but not --ref, --swap, --swap-from, --target, --variants, --out, --json or --summary-md: the command chooses the variants and where runs go (reports/history/).";

export const HISTORY_ADD_COMMAND = {
  command: "history add <results..>",
  describe:
    "Import earlier runs (results.json files or run directories) into the history store; the same run added twice is one run",
  positionals: { results: { describe: "results.json files or run directories (reports/*/results.json)" } },
  options: {
    ...STORE,
    kind: {
      type: "enum",
      choices: RUN_KINDS,
      default: "compare",
      describe: "what runs without a history.json were (a run `history record` made carries its own)",
    },
    branch: { type: "string", describe: "the branch of runs without a history.json (none: in no series)" },
    repo: {
      type: "string",
      describe: "a repository holding the runs' commits: their first parents, times and order are stored with them",
    },
  },
} as const satisfies CommandSpec;

export const HISTORY_RECORD_COMMAND = {
  command: "history record",
  describe:
    "Measure each first-parent commit of a range as a paired run against a fixed anchor and store it (resumable: recorded commits are skipped)",
  options: {
    ...STORE,
    ...BRANCH,
    commits: {
      type: "string",
      describe: "the commits to record: A..B (first-parent commits after A up to B) or one revision",
    },
    anchor: {
      type: "string",
      describe: "the revision every commit is measured against (a release tag, say); ratios are to it",
    },
  },
  notes: BENCH_NOTE,
} as const satisfies CommandSpec;

export const HISTORY_DETECT_COMMAND = {
  command: "history detect",
  describe:
    "Recompute the change points of every series in the store (E-divisive means over log ratio to the anchor) and list one alert per suspect commit",
  options: {
    ...STORE,
    branch: { type: "string", describe: "only this branch's series (default: every branch)" },
    ...DETECT,
  },
} as const satisfies CommandSpec;

export const HISTORY_PAGE_COMMAND = {
  command: "history page",
  describe: "Write history.html: one chart per series, intervals as bands, change points marked, the anchor named",
  options: {
    ...STORE,
    branch: { type: "string", describe: "only this branch's series (default: every branch)" },
    out: { type: "string", default: "history.html", describe: "the page to write" },
    ...DETECT,
  },
} as const satisfies CommandSpec;

export const HISTORY_REGRESSIONS_COMMAND = {
  command: "history regressions",
  describe:
    "Measure HEAD against an earlier revision, paired, and list the cells that got worse: catches a slow creep no single step shows",
  options: {
    ...STORE,
    ...BRANCH,
    since: { type: "string", describe: "the earlier revision (a tag, a commit)" },
    head: { type: "string", default: "HEAD", describe: "the revision to judge" },
  },
  notes: BENCH_NOTE,
} as const satisfies CommandSpec;

export const HISTORY_TRIAGE_COMMAND = {
  command: "history triage <commit>",
  describe: "Mark a suspect commit's alert acknowledged or hidden; kept across recomputes of the change points",
  positionals: { commit: { describe: "the suspect commit (a sha or a unique prefix)" } },
  options: {
    ...STORE,
    state: { type: "enum", choices: TRIAGE_STATES, describe: "what the alert is now" },
    note: { type: "string", describe: "why, in a few words" },
    branch: { type: "string", default: "main", describe: "the branch of the alert" },
  },
} as const satisfies CommandSpec;

/** How a paired comparison with three outcomes takes more pairs: confirm and bisect. */
const PAIRS = {
  "max-pairs": {
    type: "int",
    min: 2,
    max: 1000,
    default: 64,
    describe:
      "an UNKNOWN comparison (interval neither clear of 1 beyond the floor nor inside it) is measured again with twice the pairs (--trials first), up to this many, then left UNKNOWN",
  },
} as const satisfies OptionTable;

export const HISTORY_CONFIRM_COMMAND = {
  command: "history confirm",
  describe:
    "Re-measure each change point paired, last stable commit against the suspect: DIFFERENT confirms it, SAME rejects it (kept: the false-alarm rate), UNKNOWN after the cap of pairs",
  options: {
    ...STORE,
    ...BRANCH,
    ...DETECT,
    ...PAIRS,
    bisect: {
      type: "boolean",
      default: false,
      describe: "bisect each confirmed change point to its culprit commit and write it into the store and the page",
    },
  },
  notes: BENCH_NOTE,
} as const satisfies CommandSpec;

export const BISECT_COMMAND = {
  command: "bisect",
  describe:
    "Find the first-parent commit of (--good, --bad] that changed the server: each step a paired comparison with three outcomes, every step saved in the history store (a killed bisect resumes)",
  options: {
    ...STORE,
    ...BRANCH,
    good: { type: "string", describe: "the last revision known good (the older one)" },
    bad: {
      type: "string",
      describe: "the revision that differs from --good (the newer one, on its first-parent chain)",
    },
    ...PAIRS,
  },
  notes: BENCH_NOTE,
} as const satisfies CommandSpec;

/** The commands that measure through bench: they take its measurement flags too. */
export const MEASURING_COMMANDS: readonly CommandSpec[] = [
  HISTORY_RECORD_COMMAND,
  HISTORY_REGRESSIONS_COMMAND,
  HISTORY_CONFIRM_COMMAND,
  BISECT_COMMAND,
];

export const HISTORY_COMMANDS: readonly CommandSpec[] = [
  HISTORY_ADD_COMMAND,
  HISTORY_RECORD_COMMAND,
  HISTORY_DETECT_COMMAND,
  HISTORY_REGRESSIONS_COMMAND,
  HISTORY_CONFIRM_COMMAND,
  HISTORY_PAGE_COMMAND,
  HISTORY_TRIAGE_COMMAND,
  BISECT_COMMAND,
];
