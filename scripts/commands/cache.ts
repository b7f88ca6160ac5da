// `catchup-bench cache`: what a repository's checkout cache holds, or `--clean` to remove it (all of
// it, or one revision's checkouts). A thin layer over refs/cache-list.ts and refs/clean.ts.
import { resolve } from "node:path";
import type { CommandModule } from "yargs";
import { BENCH_OPTIONS } from "../options/bench.js";
import { CACHE_COMMAND, CACHE_OPTIONS } from "../options/cache.js";
import { loadConfigFile } from "../options/config-file.js";
import { readFlags } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import { cacheText, listCache } from "../refs/cache-list.js";
import { cleanCheckouts, cleanText } from "../refs/clean.js";
import { RefsError } from "../refs/git.js";
import { escapeLines } from "../util/escape.js";
import { EXIT } from "../util/exit-codes.js";
import { UsageError } from "../util/usage.js";

/** --repo, else the config file's repo (already resolved from its folder), else the working directory. */
function repoOf(given: string | undefined, cwd: string): string {
  if (given !== undefined) return resolve(cwd, given);
  const repo = loadConfigFile(BENCH_OPTIONS, undefined, cwd)?.flags.repo;
  return typeof repo === "string" ? repo : cwd;
}

export const cacheCommand: CommandModule = {
  command: CACHE_COMMAND.command,
  describe: CACHE_COMMAND.describe,
  builder: (y) => applyOptions(y, CACHE_COMMAND),
  handler: (argv) => {
    const f = readFlags(CACHE_OPTIONS, argv);
    if (f.ref !== undefined && !f.clean)
      throw new UsageError("--ref goes with --clean (the revision whose checkouts to remove)");
    const repo = repoOf(f.repo, process.cwd());
    try {
      const lines = f.clean ? cleanText(cleanCheckouts(repo, f.ref ?? null)) : cacheText(listCache(repo), Date.now());
      process.stdout.write(`${lines.join("\n")}\n`);
    } catch (e) {
      if (!(e instanceof RefsError)) throw e;
      // git's own lines are data: no control characters reach the terminal.
      process.stderr.write(`catchup-bench: ${escapeLines(e.message)}\n`);
      process.exitCode = EXIT.noResult;
    }
  },
};
