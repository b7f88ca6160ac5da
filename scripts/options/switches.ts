// yargs reads `--quick=maybe`, `--quick=yes` and `--quick=1` all as false, so a typo silently runs
// the full matrix. The text after `=` of a switch is checked here, on the raw arguments, before
// yargs sees them: only `true` and `false` are switch values.

import { UsageError } from "../util/usage.js";
import { COMMAND_SPECS } from "./commands.js";

/** The names that are switches in some command and never anything else. */
function switchNames(): Set<string> {
  const switches = new Set<string>();
  const others = new Set<string>();
  for (const spec of COMMAND_SPECS) {
    for (const [flag, o] of Object.entries(spec.options)) (o.type === "boolean" ? switches : others).add(flag);
  }
  for (const flag of others) switches.delete(flag);
  return switches;
}

/** Throws a UsageError for the first `--switch=VALUE` (or `--no-switch=VALUE`) whose VALUE is not true/false. */
export function checkSwitchValues(argv: readonly string[], names: ReadonlySet<string> = switchNames()): void {
  for (const arg of argv) {
    if (arg === "--") return; // the rest is not flags
    const m = /^--([^=]+)=(.*)$/s.exec(arg);
    if (!m) continue;
    const [, flag = "", value = ""] = m;
    const name = flag.startsWith("no-") && names.has(flag.slice(3)) ? flag.slice(3) : flag;
    if (!names.has(name) || value === "true" || value === "false") continue;
    throw new UsageError(
      `--${flag}=${JSON.stringify(value).slice(1, -1)}: --${name} is a switch; its value is true or false (or give --${name} / --no-${name})`,
    );
  }
}
