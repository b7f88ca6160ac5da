// `catchup-bench init`: writes a starter catchup-bench.config.json in the working directory (atomically;
// an existing one is kept unless --force), comparing this repository's baseline branch with HEAD.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { CONFIG_FILE } from "../options/config-file.js";
import { INIT_COMMAND, INIT_OPTIONS } from "../options/init.js";
import { readFlags } from "../options/spec.js";
import { starterConfig, starterNote } from "../options/starter-config.js";
import { applyOptions } from "../options/yargs.js";
import { UsageError } from "../util/usage.js";

/** The remote's default branch ("origin/main"), else "main". */
function defaultBaseline(cwd: string): string {
  try {
    return (
      execFileSync("git", ["rev-parse", "--abbrev-ref", "origin/HEAD"], {
        cwd,
        encoding: "utf8",
        timeout: 10_000,
        stdio: ["ignore", "pipe", "ignore"],
      }).trim() || "main"
    );
  } catch {
    return "main";
  }
}

/** package.json's scripts in `cwd`, or none. */
function packageScripts(cwd: string): Record<string, string> {
  try {
    const pkg = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")) as { scripts?: Record<string, string> };
    return pkg.scripts ?? {};
  } catch {
    return {};
  }
}

export const initCommand: CommandModule = {
  command: INIT_COMMAND.command,
  describe: INIT_COMMAND.describe,
  builder: (y) => applyOptions(y, INIT_COMMAND),
  handler: (argv) => {
    const f = readFlags(INIT_OPTIONS, argv);
    const cwd = process.cwd();
    const path = join(cwd, CONFIG_FILE);
    const existing = existsSync(path) ? statSync(path) : null;
    if (existing && !existing.isFile()) {
      const what = existing.isDirectory() ? "a folder" : "something else";
      throw new UsageError(`${path} is ${what}, not a config file: move it away (init --force replaces a file only)`);
    }
    if (existing && !f.force) throw new UsageError(`${path} exists: edit it, or give --force to replace it`);
    writeFileAtomic(
      path,
      starterConfig({ baseline: f.baseline ?? defaultBaseline(cwd), scripts: packageScripts(cwd) }),
    );
    process.stdout.write(`${starterNote(path).join("\n")}\n`);
  },
};
