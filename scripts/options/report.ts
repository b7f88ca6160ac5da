// `report` flags: the one table from which yargs, --help, docs/cli.md and validation come.
import { GUARD_OPTIONS } from "./guard.js";
import { SUMMARY_OPTIONS } from "./output.js";
import type { CommandSpec } from "./spec.js";

const DISTRIBUTED = "Distributed k6 runs:";

export const REPORT_OPTIONS = {
  ...GUARD_OPTIONS(),
  ...SUMMARY_OPTIONS(),
  merge: {
    type: "string",
    repeatable: true,
    describe:
      "merge the per-runner summaries of one distributed k6 run (summary*.json files, or directories holding them) into one report, instead of a <run>",
    group: DISTRIBUTED,
  },
  out: {
    type: "string",
    describe: "with --merge: also write merged.md, merged.html and merged.json into this directory",
    group: DISTRIBUTED,
  },
  samples: {
    type: "string",
    repeatable: true,
    describe:
      "with --merge: a samples file of `catchup-bench sample` (the server's memory); give two for two servers side by side. Default: agent*.jsonl and samples*.jsonl in the --merge directories",
    group: DISTRIBUTED,
  },
  "clock-offset-ms": {
    type: "number",
    min: -86_400_000,
    max: 86_400_000,
    default: 0,
    describe:
      "with --samples: added to the runners' wall-clock marks to put them on the agent host's clock (agent clock minus runner clock), ms",
    group: DISTRIBUTED,
  },
} as const satisfies CommandSpec["options"];

export const REPORT_COMMAND = {
  command: "report [run]",
  describe:
    "Re-render report.md and report.html of a run directory (reports/<run>) from its results.json, or merge a distributed k6 run's summaries (--merge)",
  positionals: { run: { describe: "run directory holding results.json" } },
  options: REPORT_OPTIONS,
} satisfies CommandSpec;
