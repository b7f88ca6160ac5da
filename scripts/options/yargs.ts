// Builds a command's yargs options from its table. yargs parses every value as the text the user
// typed (so readFlags can refuse "0x10" or "Infinity", which yargs' own number parsing would accept) and
// never fills in defaults (so a command can tell a given flag from a default); help still shows the
// table's type and default.
import type { Argv } from "yargs";
import { type CommandSpec, defaultShown, type OptionSpec } from "./spec.js";

function extra(spec: OptionSpec): string {
  switch (spec.type) {
    case "int":
    case "number":
    case "int-list":
      return ` (${spec.min}-${spec.max})`;
    case "enum":
    case "enum-list":
      return ` (${spec.choices.join(", ")})`;
    default:
      return "";
  }
}

/** Declares the command's positionals and options on `y`. */
export function applyOptions(y: Argv, spec: CommandSpec): Argv {
  let b = y;
  for (const [name, p] of Object.entries(spec.positionals ?? {})) {
    b = b.positional(name, {
      type: "string",
      // "[name]" in the command string is optional; "<name>" is required.
      demandOption: !spec.command.includes(`[${name}]`),
      describe: p.choices ? `${p.describe} (${p.choices.join(", ")})` : p.describe,
    });
  }
  for (const [flag, o] of Object.entries(spec.options)) {
    const shown = defaultShown(o);
    const common = {
      // Not inherited by subcommands (`fixture info` takes none of `fixture`'s flags).
      global: false,
      describe: `${o.describe}${extra(o)}`,
      ...(shown !== undefined ? { defaultDescription: shown } : {}),
      ...(o.group ? { group: o.group } : {}),
    };
    if (o.type === "boolean") {
      b = b.option(flag, { ...common, type: "boolean" });
    } else if (o.type === "int" || o.type === "number") {
      // Declared both ways: help labels it [number]; the parser keeps the typed text (string wins).
      b = b.option(flag, { ...common, type: "number" }).string(flag);
    } else {
      b = b.option(flag, { ...common, type: "string" });
    }
  }
  return b;
}

/**
 * yargs renders a command's whole help text (cliui, string widths) as it calls the handler, so the
 * help it would print from a handler still running async shows that command's flags. Nothing here
 * prints help after a handler starts (--help never reaches one; `.fail()` throws without help), so
 * that text, 0.1 s for bench on every run, is never read: skip it. (yargs has no option for this; the
 * usage instance is one object for the parser's life.)
 */
export function skipHelpCache(parser: Argv): void {
  const internal = parser as unknown as { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } };
  internal.getInternalMethods().getUsageInstance().cacheHelpMessage = () => {};
}
