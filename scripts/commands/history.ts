// `catchup-bench history <command>`: the history store across commits. A thin layer over
// scripts/history/ (add, record, detect, regressions, confirm, page, triage) and `bisect`; the store and the harness are
// loaded once the flags are read.
import type { Argv, CommandModule } from "yargs";
import {
  BISECT_COMMAND,
  HISTORY_BENCH_OPTIONS,
  HISTORY_COMMANDS,
  HISTORY_CONFIRM_COMMAND,
  HISTORY_RECORD_COMMAND,
  HISTORY_REGRESSIONS_COMMAND,
} from "../options/history.js";
import type { CommandSpec } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import { runBisect, runConfirm } from "./bisect-run.js";
import { runHistoryCommand, storeFailures } from "./history-run.js";

type Raw = Record<string, unknown>;

/** The subcommands that run the bench take its flags too. */
const MEASURING: readonly CommandSpec[] = [
  HISTORY_RECORD_COMMAND,
  HISTORY_REGRESSIONS_COMMAND,
  HISTORY_CONFIRM_COMMAND,
];

function sub(spec: CommandSpec): CommandModule<object, Raw> {
  const measures = MEASURING.includes(spec);
  const name = spec.command.replace(/^history /, "").split(" ")[0] as string;
  return {
    command: spec.command.replace(/^history /, ""),
    describe: spec.describe,
    builder: (y: Argv) => {
      const withOwn = applyOptions(y, spec);
      return (
        measures ? applyOptions(withOwn, { ...spec, positionals: {}, options: HISTORY_BENCH_OPTIONS }) : withOwn
      ) as never;
    },
    handler: async (argv) => {
      const code = await storeFailures(() => (name === "confirm" ? runConfirm(argv) : runHistoryCommand(name, argv)));
      if (code !== 0) process.exitCode = code;
    },
  };
}

export const historyCommand: CommandModule = {
  command: "history <command>",
  describe: "The history of a server across commits: record, add, detect change points, regressions, the page",
  builder: (y: Argv) =>
    HISTORY_COMMANDS.filter((spec) => spec.command.startsWith("history "))
      .reduce((argv, spec) => argv.command(sub(spec) as CommandModule), y)
      .demandCommand(1, "Name a history command: add, record, detect, regressions, confirm, page or triage")
      .example(
        "$0 history record --commits v1.2.0..main --anchor v1.2.0",
        "measure every commit since the tag against it",
      )
      .example("$0 history add reports/*/results.json", "import runs CI kept as artifacts")
      .example("$0 history detect", "recompute the change points; one alert per suspect commit")
      .example("$0 history confirm --bisect", "re-measure each change point paired, then bisect it to its culprit")
      .example("$0 history page --out history.html", "one chart per series"),
  handler: () => undefined,
};

/** `catchup-bench bisect --good P --bad S`: the commit that changed the server. */
export const bisectCommand: CommandModule = {
  command: "bisect",
  describe: BISECT_COMMAND.describe,
  builder: (y: Argv) =>
    applyOptions(applyOptions(y, BISECT_COMMAND), {
      ...BISECT_COMMAND,
      options: HISTORY_BENCH_OPTIONS,
    }).example("$0 bisect --good v1.2.0 --bad main", "the first commit after v1.2.0 that changed a cell") as never,
  handler: async (argv) => {
    const code = await storeFailures(() => runBisect(argv as Raw));
    if (code !== 0) process.exitCode = code;
  },
};
