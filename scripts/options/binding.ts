// --binding and --binding-option: the load phase's flags and the rules between them and the targets.
import type { BindingConfig, TargetSpec } from "../bench/run/config.js";
import { UsageError } from "../util/usage.js";
import { given } from "./spec.js";

/** --seed-window when not given: a server answers 16 writes in flight in little more than one round trip. */
export const DEFAULT_SEED_WINDOW = 16;

const KEY_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** --binding-timeout-ms when not given: room for a prepare that runs the server's CLI cold. */
export const DEFAULT_BINDING_TIMEOUT_MS = 120_000;

/** --binding-option KEY=VALUE, repeatable; a key given twice is an error. */
export function bindingOptions(words: readonly string[]): Record<string, string> {
  const options: Record<string, string> = {};
  for (const word of words) {
    const eq = word.indexOf("=");
    const key = eq < 0 ? word : word.slice(0, eq);
    if (eq < 0 || !KEY_RE.test(key)) {
      throw new UsageError(
        `--binding-option must be KEY=VALUE with a key of letters, digits, ".", "_" or "-" (got ${JSON.stringify(word)})`,
      );
    }
    if (key in options) throw new UsageError(`--binding-option ${key} is given twice`);
    options[key] = word.slice(eq + 1);
  }
  return options;
}

/** The load phase's config; a usage error when the flags cannot work together. */
export function bindingFromFlags(
  raw: Record<string, unknown>,
  f: { binding?: string; "binding-option"?: string[]; "binding-timeout-ms"?: number; "seed-window"?: number },
  targets: readonly TargetSpec[],
): BindingConfig {
  const options = bindingOptions(f["binding-option"] ?? []);
  const timeoutMs = f["binding-timeout-ms"] ?? DEFAULT_BINDING_TIMEOUT_MS;
  const window = f["seed-window"] ?? DEFAULT_SEED_WINDOW;
  const foreign = targets.filter((t) => t.kind === "command");
  if (f.binding === undefined) {
    if (Object.keys(options).length > 0) throw new UsageError("--binding-option goes with --binding");
    for (const flag of ["binding-timeout-ms", "seed-window"]) {
      if (given(raw, flag)) throw new UsageError(`--${flag} goes with --binding`);
    }
    const stateful = foreign.find((t) => t.command.includes("{state}"));
    if (stateful) {
      throw new UsageError(
        `the start command of ${stateful.name} takes {state}, a seeded state: name the binding that seeds it with --binding (docs/bindings.md), or use {db} for a copy of the fixture`,
      );
    }
    return { module: null, options, timeoutMs, window };
  }
  if (foreign.length === 0) {
    throw new UsageError(
      "--binding seeds foreign servers (--target or --ref with --start); the bundled server reads the fixture itself",
    );
  }
  for (const t of foreign) {
    if (!t.command.includes("{state}")) {
      throw new UsageError(
        `--binding: the start command of ${t.name} has no {state}: put the state folder where the server keeps its store, e.g. --base-dir {state}`,
      );
    }
  }
  for (const flag of ["cursor", "latest"]) {
    if (given(raw, flag)) throw new UsageError(`--${flag} goes without --binding: the seed gives the cursors`);
  }
  return { module: f.binding, options, timeoutMs, window };
}
