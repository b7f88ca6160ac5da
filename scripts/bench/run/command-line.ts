// The command that started a run and the harness's version, recorded in results.json for the report's
// conditions line: a reader can re-run exactly what was measured.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { redact } from "../../util/redact.js";

/** Quotes one argument for a POSIX shell when it needs quoting. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** "catchup-bench bench --quick --ref main=origin/main", secrets redacted. */
export function commandLine(argv: readonly string[]): string {
  return redact(["catchup-bench", ...argv.map(shellQuote)].join(" "));
}

/** A JSON file's field, or undefined when the file or the field is missing (or not JSON). */
function field(file: string, name: string): unknown {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

/**
 * The harness's identity, from its own package root: its version (package.json) and its commit, as
 * its build recorded it (dist/build-info.json, scripts/build-info.mjs), never the commit of the
 * repository it is installed in or run from; gitDirty when that build had uncommitted changes. Null:
 * built from no git checkout of its own.
 */
export function harnessOf(root: string): { harnessVersion?: string; gitCommit: string | null; gitDirty?: true } {
  const version = field(join(root, "package.json"), "version");
  const info = join(root, "dist", "build-info.json");
  const commit = field(info, "commit");
  const gitCommit = typeof commit === "string" && /^[0-9a-f]{40,64}$/.test(commit) ? commit : null;
  return {
    ...(typeof version === "string" ? { harnessVersion: version } : {}),
    gitCommit,
    ...(gitCommit && field(info, "dirty") === true ? { gitDirty: true as const } : {}),
  };
}
