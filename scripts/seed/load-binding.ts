// Finds and loads a binding: a name shipped in the package's bindings/ folder, or a path to the
// user's own module. A module that does not keep the contract (binding.ts) is a usage error naming
// the file and what is missing.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Binding } from "../../bindings/binding.js";
import { UsageError } from "../util/usage.js";

export interface LoadedBinding {
  binding: Binding;
  /** The module's file, absolute. */
  path: string;
  /** sha256 of the module's text: a template seeded by another version of it is not reused. */
  digest: string;
}

/** The bindings shipped in the package (their names: bindings/<name>.mjs). */
export function shippedBindings(root: string): string[] {
  const dir = join(root, "bindings");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".mjs"))
    .map((f) => f.slice(0, -".mjs".length))
    .sort();
}

/** `--binding` is a shipped binding's name ("t3code") or a module's path ("./bench/notes.mjs"). */
export const looksLikeModulePath = (spec: string): boolean => spec.includes("/") || /\.(m?js)$/.test(spec);

/** The file `--binding` names: a shipped binding's name, else a path from cwd. */
export function bindingPath(spec: string, root: string, cwd: string): string {
  const shipped = shippedBindings(root);
  if (shipped.includes(spec)) return join(root, "bindings", `${spec}.mjs`);
  const path = isAbsolute(spec) ? spec : resolve(cwd, spec);
  if (!looksLikeModulePath(spec) || !existsSync(path)) {
    throw new UsageError(
      `--binding ${JSON.stringify(spec)}: no such file, and not a shipped binding (shipped: ${shipped.join(", ") || "none"})`,
    );
  }
  return path;
}

/** What the module lacks of the contract, one phrase each (empty: it keeps it). */
export function contractGaps(b: unknown): string[] {
  if (b === null || typeof b !== "object") return ["a default export that is an object"];
  const o = b as Record<string, unknown>;
  const gaps: string[] = [];
  if (typeof o.name !== "string" || o.name === "") gaps.push("name (a non-empty string)");
  const kinds = o.kinds;
  if (!Array.isArray(kinds) || kinds.length === 0 || !kinds.every((k) => k === "project" || k === "thread")) {
    gaps.push('kinds (a non-empty array of "project" and/or "thread")');
  }
  if (o.prepare !== undefined && typeof o.prepare !== "function") gaps.push("prepare (a function, when present)");
  if (typeof o.write !== "function") gaps.push("write(event, ctx) (a function)");
  if (typeof o.summarize !== "function") gaps.push("summarize(items) (a function)");
  if (o.exclude !== undefined && !(Array.isArray(o.exclude) && o.exclude.every((p) => typeof p === "string"))) {
    gaps.push("exclude (an array of paths, when present)");
  }
  return gaps;
}

/** Imports the binding and checks it keeps the contract. */
export async function loadBinding(spec: string, root: string, cwd: string): Promise<LoadedBinding> {
  const path = bindingPath(spec, root, cwd);
  const text = readFileSync(path);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (e) {
    throw new UsageError(`--binding ${path}: cannot be loaded (${(e as Error).message.split("\n")[0]})`);
  }
  const gaps = contractGaps(mod.default);
  if (gaps.length > 0) {
    throw new UsageError(`--binding ${path}: not a binding; it lacks ${gaps.join("; ")} (see docs/bindings.md)`);
  }
  return { binding: mod.default as Binding, path, digest: createHash("sha256").update(text).digest("hex") };
}
