// `catchup-bench init`: writes a starter catchup-bench.config.json in the working directory (atomically;
// an existing one is kept unless --force), comparing this repository's baseline branch with HEAD, with
// build and start commands read from package.json; `--binding` also writes a binding skeleton. It
// writes reports/.gitignore so run folders stay out of `git status`. What would make the next `bench`
// fail (no git repository, a baseline that does not exist) is a warning on stderr, exit 0: the files
// are still worth editing.
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { CommandModule } from "yargs";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { bindingSkeleton } from "../options/binding-skeleton.js";
import { CONFIG_FILE } from "../options/config-file.js";
import { INIT_COMMAND, INIT_OPTIONS } from "../options/init.js";
import { readFlags } from "../options/spec.js";
import { BINDING_FILE, type StarterFacts, starterConfig, starterNote, withBinding } from "../options/starter-config.js";
import { applyOptions } from "../options/yargs.js";
import { type BaselineFacts, readBaseline } from "../refs/baseline.js";
import { ignoreReports } from "../results/reports-ignore.js";
import { UsageError } from "../util/usage.js";

/** package.json's name and scripts in `cwd`, or none. */
function readPackage(cwd: string): { name: string | null; scripts: Record<string, string> } {
  try {
    const pkg = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")) as {
      name?: unknown;
      scripts?: Record<string, string>;
    };
    return { name: typeof pkg.name === "string" ? pkg.name : null, scripts: pkg.scripts ?? {} };
  } catch {
    return { name: null, scripts: {} };
  }
}

/** The package manager a clean checkout installs with, from its lock file; null without one. */
function lockfileOf(cwd: string): StarterFacts["lockfile"] {
  if (existsSync(join(cwd, "package-lock.json"))) return "npm";
  if (existsSync(join(cwd, "pnpm-lock.yaml"))) return "pnpm";
  if (existsSync(join(cwd, "yarn.lock"))) return "yarn";
  return null;
}

/** A file init would write: refused when something else is in its place, or when it exists without --force. */
function checkTarget(path: string, force: boolean): void {
  if (!existsSync(path)) return;
  const existing = statSync(path);
  if (!existing.isFile()) {
    const what = existing.isDirectory() ? "a folder" : "something else";
    throw new UsageError(`${path} is ${what}, not a file: move it away (init --force replaces a file only)`);
  }
  if (!force) throw new UsageError(`${path} exists: edit it, or give --force to replace it`);
}

/** The warnings of a repository the next `bench` would refuse, plainly. */
function repositoryWarnings(cwd: string, facts: BaselineFacts): string[] {
  if (facts.top === null) {
    return [
      `${cwd} is not in a git repository: the config compares git revisions ("repo": ".", "ref"), so \`bench\` will refuse it; run init in your server's repository, or replace "repo" and "ref" with "target" commands (docs/measuring-your-server.md)`,
    ];
  }
  if (facts.exists) return [];
  const known =
    facts.branches.length > 0 ? `its branches: ${facts.branches.slice(0, 10).join(", ")}` : "it has no commit yet";
  return [
    `the baseline ${facts.baseline} is no revision of ${facts.top} (${known}): edit "ref" in ${CONFIG_FILE}, or run init --force --baseline BRANCH`,
  ];
}

/** `init --binding` beside a config that exists: the skeleton, named in that config (kept otherwise). */
function addBinding(path: string, bindingPath: string, pkg: { name: string | null; scripts: Record<string, string> }) {
  const { text, note } = withBinding(readFileSync(path, "utf8"), path, pkg.scripts);
  mkdirSync(dirname(bindingPath), { recursive: true });
  writeFileAtomic(bindingPath, bindingSkeleton(pkg.name ?? basename(process.cwd())));
  writeFileAtomic(path, text);
  const lines = [
    `wrote ${bindingPath}: fill it in (the steps are at its top; docs/bindings.md): it seeds your server from the fixture through its own API`,
    ...note,
    "then: npx catchup-bench bench --quick to try the set-up, and npx catchup-bench bench for the comparison",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

export const initCommand: CommandModule = {
  command: INIT_COMMAND.command,
  describe: INIT_COMMAND.describe,
  builder: (y) => applyOptions(y, INIT_COMMAND),
  handler: (argv) => {
    const f = readFlags(INIT_OPTIONS, argv);
    const cwd = process.cwd();
    const path = join(cwd, CONFIG_FILE);
    const bindingPath = join(cwd, BINDING_FILE);
    const pkg = readPackage(cwd);
    if (f.binding) checkTarget(bindingPath, f.force);
    if (f.binding && !f.force && existsSync(path) && statSync(path).isFile()) {
      addBinding(path, bindingPath, pkg);
      return;
    }
    checkTarget(path, f.force);
    const repo = readBaseline(cwd, f.baseline);
    const facts = { baseline: repo.baseline, scripts: pkg.scripts, lockfile: lockfileOf(cwd), binding: f.binding };
    writeFileAtomic(path, starterConfig(facts));
    if (f.binding) {
      mkdirSync(dirname(bindingPath), { recursive: true });
      writeFileAtomic(bindingPath, bindingSkeleton(pkg.name ?? basename(cwd)));
    }
    const ignore = ignoreReports(join(cwd, "reports"));
    const note = starterNote(path, { ...facts, why: repo.why }, { binding: f.binding ? bindingPath : null, ignore });
    process.stdout.write(`${note.join("\n")}\n`);
    for (const line of repositoryWarnings(cwd, repo)) process.stderr.write(`catchup-bench: warning: ${line}\n`);
  },
};
