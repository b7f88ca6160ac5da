// The catchup-bench CLI: a thin yargs layer over functions a program can call.
// Each subcommand lives in scripts/commands/ and exports a yargs CommandModule whose options come
// from its table in scripts/options/.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import yargs, { type CommandModule } from "yargs";
import { benchCommand } from "./commands/bench.js";
import { cacheCommand } from "./commands/cache.js";
import { clinicCommand } from "./commands/clinic.js";
import { fixtureCommand } from "./commands/fixture.js";
import { fuzzCommand } from "./commands/fuzz.js";
import { bisectCommand, historyCommand } from "./commands/history.js";
import { initCommand } from "./commands/init.js";
import { k6OperatorCommand } from "./commands/k6-operator.js";
import { reportCommand } from "./commands/report.js";
import { sampleCommand } from "./commands/sample.js";
import { serveCommand } from "./commands/serve.js";
import { COMMAND_SPECS } from "./options/commands.js";
import { HISTORY_BENCH_OPTIONS, MEASURING_COMMANDS } from "./options/history.js";
import { checkSwitchValues } from "./options/switches.js";
import { skipHelpCache } from "./options/yargs.js";
import { escapeText } from "./util/escape.js";
import { EXIT } from "./util/exit-codes.js";
import { sinkStandardStreamsOnError } from "./util/output-streams.js";
import { pendingWaits } from "./util/pending.js";
import { suggestFlag } from "./util/suggest.js";
import { UsageError } from "./util/usage.js";

// Each command module is typed by its own options; yargs takes them as one list.
const commands = [
  fixtureCommand,
  benchCommand,
  fuzzCommand,
  reportCommand,
  clinicCommand,
  serveCommand,
  k6OperatorCommand,
  sampleCommand,
  initCommand,
  historyCommand,
  bisectCommand,
  cacheCommand,
] as CommandModule<object, never>[];

/** The package's version, from the nearest package.json above this module (dist/ or the sources). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "catchup-bench" && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return "unknown";
    dir = dirname(dir);
  }
}

/**
 * yargs lists an unknown flag under every spelling it knows ("script-bytez, scriptBytez"); name each
 * once, as it appears on the command line.
 */
export function unknownArgumentMessage(msg: string, argv: readonly string[]): string {
  const m = /^Unknown arguments?: (.*)$/.exec(msg);
  if (!m?.[1]) return msg;
  const typed = new Set<string>();
  for (const name of m[1].split(", ")) {
    const token = argv.find((a) => {
      const flag = a.replace(/^--?/, "").split("=")[0];
      return flag === name || flag === `no-${name}`;
    });
    if (token) typed.add(token.replace(/^--?/, "").split("=")[0] as string);
  }
  // A name not on the command line is a spelling yargs made up (camelCase of a typed kebab-case flag).
  for (const name of m[1].split(", ")) {
    const kebab = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (![...typed].some((t) => t === kebab || t === `no-${kebab}` || t === name)) typed.add(name);
  }
  const names = [...typed];
  const known = knownFlags(argv);
  const hints = names.flatMap((n) => {
    const near = suggestFlag(n, known);
    if (near !== null && near !== n) return [`--${n}: did you mean --${near}?`];
    // A flag of another command is known, just not to this one: say whose it is.
    const owners = COMMAND_SPECS.filter((s) => n in s.options).map((s) => s.command.split(" ")[0]);
    return owners.length > 0 ? [`--${n} is a flag of ${[...new Set(owners)].join(", ")}`] : [];
  });
  return `Unknown argument${names.length > 1 ? "s" : ""}: ${names.join(", ")}${hints.length > 0 ? ` (${hints.join("; ")})` : ""}`;
}

/** Every command's flags; a command that runs benches (history record, bisect, ...) takes the bench flags too. */
const SPECS = COMMAND_SPECS.map((s) =>
  MEASURING_COMMANDS.includes(s) ? { ...s, options: { ...s.options, ...HISTORY_BENCH_OPTIONS } } : s,
);

/** The flags of the command named first on the command line (every command's when it is unknown). */
function knownFlags(argv: readonly string[]): string[] {
  const words = argv.filter((a) => !a.startsWith("-"));
  const name = words[0] === "history" ? `history ${words[1]}` : words[0];
  const specs = SPECS.filter(
    (s) =>
      s.command
        .split(" ")
        .slice(0, name?.includes(" ") ? 2 : 1)
        .join(" ") === name,
  );
  return [...new Set((specs.length > 0 ? specs : SPECS).flatMap((s) => Object.keys(s.options)))];
}

/**
 * The command named first on the command line must be one: `bisect --json` is an unknown command
 * (yargs would call both words unknown arguments, and suggest --json for --json).
 */
function checkCommandName(argv: readonly string[], names: readonly string[]): void {
  const name = argv.find((a) => !a.startsWith("-"));
  if (name === undefined || names.includes(name)) return;
  const near = suggestFlag(name, names);
  throw new UsageError(
    `unknown command ${name}${near ? ` (did you mean ${near}?)` : ""}; the commands are ${names.join(", ")} (see --help)`,
  );
}

/**
 * Runs the CLI; sets process.exitCode rather than exiting: 2 for usage errors, 3 when a command
 * failed to produce its result (commands set 1, 130 and 143 themselves).
 */
export async function main(argv: string[]): Promise<void> {
  // A closed or full stdout/stderr only loses that output, never the run.
  sinkStandardStreamsOnError();
  let parser = yargs(argv)
    .scriptName("catchup-bench")
    .usage("$0 <command> [options]")
    // Flags are read as typed (kebab-case): no camelCase aliases to report or to accept.
    .parserConfiguration({ "camel-case-expansion": false })
    .strict()
    .demandCommand(1, "Name a command: see --help")
    .recommendCommands()
    .help()
    .alias("h", "help")
    .version(packageVersion())
    .wrap(Math.min(110, process.stdout.columns || 110))
    .fail((msg, err) => {
      // yargs names an unknown flag or a missing argument but not what is allowed: point at the list.
      if (!err && /^(Unknown argument|Not enough non-option arguments)/.test(msg)) {
        throw new UsageError(`${unknownArgumentMessage(msg, argv)}; see --help for the allowed flags and arguments`);
      }
      throw err ?? new UsageError(msg);
    });
  for (const command of commands) parser = parser.command(command);
  skipHelpCache(parser);
  try {
    checkCommandName(
      argv,
      commands.map((c) => String(c.command).split(" ")[0] as string),
    );
    checkSwitchValues(argv);
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError || (error as Error)?.name === "YError") {
      // One line, whatever a quoted path or value held (a newline in --out, an escape sequence).
      process.stderr.write(`catchup-bench: ${escapeText((error as Error).message)}\n`);
      process.exitCode = EXIT.usage;
    } else {
      process.stderr.write(`catchup-bench: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = EXIT.noResult;
    }
  }
}

/** Resolves once everything written to `stream` so far has been handed to the system (at most 2 s). */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 2000).unref();
    stream.write("", () => resolve());
  });
}

/**
 * The process's life (bin/catchup-bench.js): main(), then exit with its code. The process ends when
 * the command's work ends: a timer or socket a binding or a library left open does not keep it
 * alive. A command whose work can never end (it waits on a promise that cannot settle, and nothing is
 * left to run) exits 3 saying what it waited on, never 0.
 */
export async function runCli(argv: string[]): Promise<void> {
  let settled = false;
  const command = argv.find((a) => !a.startsWith("-")) ?? "catchup-bench";
  process.on("beforeExit", () => {
    if (settled) return;
    settled = true;
    const waits = pendingWaits();
    const what = waits.length > 0 ? waits.join("; ") : "its command";
    process.stderr.write(
      `catchup-bench: ${escapeText(command)} ended with nothing left to run while waiting on: ${escapeText(what)}; no result\n`,
    );
    process.exitCode = EXIT.noResult;
  });
  await main(argv);
  settled = true;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit();
}
