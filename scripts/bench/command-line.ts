// The command that started a run and the harness's version, recorded in results.json for the report's
// conditions line: a reader can re-run exactly what was measured.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { redact } from "../util/redact.js";

/** Quotes one argument for a POSIX shell when it needs quoting. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** "catchup-bench bench --quick --ref main=origin/main", secrets redacted. */
export function commandLine(argv: readonly string[]): string {
  return redact(["catchup-bench", ...argv.map(shellQuote)].join(" "));
}

/** { harnessVersion } from the package.json at the project root, or nothing when it cannot be read. */
export function harnessVersionOf(root: string): { harnessVersion?: string } {
  try {
    const v = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof v === "string" ? { harnessVersion: v } : {};
  } catch {
    return {};
  }
}
