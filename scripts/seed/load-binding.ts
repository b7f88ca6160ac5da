// Finds and loads a binding: a name shipped in the package's bindings/ folder, or a path to the
// user's own module. A module that does not keep the contract (binding.ts), cannot be loaded in time,
// or is given an option it does not declare is a usage error naming the file and what is wrong.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Binding } from "../../bindings/binding.js";
import { suggestFlag } from "../util/suggest.js";
import { UsageError } from "../util/usage.js";
import { BindingTimeoutError, callBinding } from "./binding-call.js";
import { type ModuleFiles, moduleFiles } from "./module-graph.js";

export interface LoadedBinding {
  binding: Binding;
  /** The module's file, absolute. */
  path: string;
  /** sha256 of the module's text (the report's record of which binding seeded). */
  digest: string;
  /** The module and every local module it imports, with their digests: part of a kept template's key. */
  files: ModuleFiles;
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
  if (existsSync(path) && statSync(path).isDirectory()) {
    const modules = readdirSync(path).filter((f) => /\.m?js$/.test(f));
    const holds = modules.length > 0 ? ` (it holds ${modules.slice(0, 5).join(", ")})` : "";
    throw new UsageError(`--binding ${path}: is a folder; name the binding's module file${holds}`);
  }
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
  if (o.order !== undefined && o.order !== "strict" && o.order !== "entity") {
    gaps.push('order ("strict": one write at a time, or "entity": a window of writes, when present)');
  }
  const options = o.options;
  if (
    options !== undefined &&
    (options === null ||
      typeof options !== "object" ||
      Array.isArray(options) ||
      !Object.values(options).every((d) => typeof d === "string"))
  ) {
    gaps.push("options (an object of option names to what each does, when present)");
  }
  return gaps;
}

/** Refuses a --binding-option the binding does not declare, naming the nearest it does and all it takes. */
export function checkBindingOptions(binding: Binding, given: Readonly<Record<string, string>>): void {
  const declared = Object.keys(binding.options ?? {});
  for (const key of Object.keys(given)) {
    if (declared.includes(key)) continue;
    const near = suggestFlag(key, declared);
    const hint = near ? ` (did you mean ${near}?)` : "";
    const takes = declared.length > 0 ? `its options: ${declared.join(", ")}` : "it declares no options";
    throw new UsageError(`--binding-option ${key}: the binding ${binding.name} has no such option${hint}; ${takes}`);
  }
}

/** Imports the binding (within `timeoutMs`, 0: no limit) and checks it keeps the contract. */
export async function loadBinding(spec: string, root: string, cwd: string, timeoutMs: number): Promise<LoadedBinding> {
  const path = bindingPath(spec, root, cwd);
  const text = readFileSync(path);
  let mod: { default?: unknown };
  try {
    const name = { name: "loading it", where: `--binding ${path}` };
    mod = await callBinding(() => import(pathToFileURL(path).href) as Promise<{ default?: unknown }>, name, {
      timeoutMs,
    });
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    throw new UsageError(`--binding ${path}: ${e instanceof BindingTimeoutError ? why : `cannot be loaded (${why})`}`);
  }
  const gaps = contractGaps(mod.default);
  if (gaps.length > 0) {
    throw new UsageError(`--binding ${path}: not a binding; it lacks ${gaps.join("; ")} (see docs/bindings.md)`);
  }
  const digest = createHash("sha256").update(text).digest("hex");
  return { binding: mod.default as Binding, path, digest, files: await moduleFiles(path) };
}
