// The files a binding's seed depends on: its module and every local module it imports, followed
// through their imports (static, and dynamic with a literal path), each with the sha256 of its text;
// a package it imports by name counts by its installed version. A kept template is reused only when
// all of these are the same (docs/bindings.md: the template cache).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { init, parse } from "es-module-lexer";

/** By the path relative to the binding's folder ("/"-separated): "sha256:…" for a file, "version …" for a package. */
export type ModuleFiles = Record<string, string>;

/** The package a bare specifier names: "effect" for "effect/Stream", "@scope/pkg" for "@scope/pkg/x". */
const packageName = (spec: string): string =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");

/** The installed version of a package, looked up from `dir` upwards as Node does; null when not found. */
function installedVersion(name: string, dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const file = join(d, "node_modules", name, "package.json");
    if (existsSync(file)) {
      try {
        return String((JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version ?? "unknown");
      } catch {
        return "unreadable";
      }
    }
    if (dirname(d) === d) return null;
  }
}

/** The local file a specifier names (relative, absolute or file: URL), or null for a package or a builtin. */
function localFile(spec: string, from: string): string | null {
  if (spec.startsWith("file:")) return fileURLToPath(spec);
  if (spec.startsWith("./") || spec.startsWith("../") || isAbsolute(spec)) return resolve(dirname(from), spec);
  return null;
}

/** The specifiers a module's text imports (null when it does not parse as a module: its text still counts). */
function importsOf(source: string): string[] | null {
  try {
    return parse(source)[0].flatMap((i) => (i.n === undefined ? [] : [i.n]));
  } catch {
    return null;
  }
}

/** Every file of `entry`'s module graph with its digest, and every package it imports with its version. */
export async function moduleFiles(entry: string): Promise<ModuleFiles> {
  await init;
  const root = dirname(entry);
  const key = (path: string) => relative(root, path).split("\\").join("/");
  const files: ModuleFiles = {};
  const queue = [entry];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!existsSync(file) || !statSync(file).isFile()) {
      files[key(file)] = "missing";
      continue;
    }
    const text = readFileSync(file);
    files[key(file)] = `sha256:${createHash("sha256").update(text).digest("hex")}`;
    if (!/\.(m?js|cjs)$/.test(file)) continue;
    for (const spec of importsOf(text.toString("utf8")) ?? []) {
      const local = localFile(spec, file);
      if (local !== null) queue.push(local);
      // A package's own "#" imports and Node's builtins are not files of the binding.
      else if (!isBuiltin(spec) && !spec.startsWith("#")) {
        const name = packageName(spec);
        files[`package ${name}`] = `version ${installedVersion(name, dirname(file)) ?? "not found"}`;
      }
    }
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
}
