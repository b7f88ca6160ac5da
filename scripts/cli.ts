// The catchup-bench CLI: a thin yargs layer over functions a program can call.
// Each subcommand lives in scripts/commands/ and exports a yargs CommandModule.
import yargs, { type CommandModule } from "yargs";
import { benchCommand } from "./commands/bench.js";
import { clinicCommand } from "./commands/clinic.js";
import { fixtureCommand } from "./commands/fixture.js";
import { fuzzCommand } from "./commands/fuzz.js";
import { reportCommand } from "./commands/report.js";
import { serveCommand } from "./commands/serve.js";
import { UsageError } from "./usage.js";

const commands: CommandModule<object, never>[] = [
  fixtureCommand as CommandModule<object, never>,
  benchCommand as CommandModule<object, never>,
  fuzzCommand as CommandModule<object, never>,
  reportCommand as CommandModule<object, never>,
  clinicCommand as CommandModule<object, never>,
  serveCommand as CommandModule<object, never>,
];

/** Runs the CLI; sets process.exitCode (2 for usage errors, 1 for failures) rather than exiting. */
export async function main(argv: string[]): Promise<void> {
  let parser = yargs(argv)
    .scriptName("catchup-bench")
    .usage("$0 <command> [options]")
    .strict()
    .demandCommand(1, "Name a command: see --help")
    .recommendCommands()
    .help()
    .alias("h", "help")
    .version(false)
    .wrap(Math.min(110, process.stdout.columns || 110))
    .fail((msg, err) => {
      // yargs names an unknown flag or a missing argument but not what is allowed: point at the list.
      if (!err && /^(Unknown argument|Not enough non-option arguments)/.test(msg)) {
        throw new UsageError(`${msg}; see --help for the allowed flags and arguments`);
      }
      throw err ?? new UsageError(msg);
    });
  for (const command of commands) parser = parser.command(command);
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError || (error as Error)?.name === "YError") {
      process.stderr.write(`catchup-bench: ${(error as Error).message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`catchup-bench: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
