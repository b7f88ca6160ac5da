// catchup-bench.config.json: any bench option in one file, so a run of one's own server is one
// command. Its keys are the bench flags as typed (kebab-case), its values what the flag takes, typed
// as JSON; the JSON Schema editors complete it with is generated from the same option table as
// --help and docs/cli.md. Pure but for loadConfigFile, whose reader is passed in.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { looksLikeModulePath } from "../seed/load-binding.js";
import { readRegularFile } from "../util/regular-file.js";
import { suggestFlag } from "../util/suggest.js";
import { UsageError } from "../util/usage.js";
import { BENCH_OPTIONS } from "./bench.js";
import { type OptionSpec, type OptionTable, parseOption } from "./spec.js";

/** The file `bench` reads from the working directory when --config does not name another. */
export const CONFIG_FILE = "catchup-bench.config.json";
/** The schema, published in the package root beside package.json. */
export const SCHEMA_FILE = "catchup-bench.schema.json";

/** Flags whose value is a file or folder: relative paths in a config resolve from the config's folder. */
const PATH_FLAGS: readonly string[] = ["out", "fixture", "fixtures-dir", "token-file", "repo", "summary-md", "history"];

/**
 * Payload templates: in the file also a JSON object, whose string "{after}" stands for the sequence
 * (a number on the wire, as `{after}` unquoted is in the flag's text).
 */
const TEMPLATE_KEYS: readonly string[] = ["subscribe-payload", "thread-subscribe-payload"];

/** A template written as an object, as the flag's text. */
function templateText(value: object): string {
  return JSON.stringify(value).replaceAll('"{after}"', "{after}");
}

/** The JSON Schema of one flag's value. */
function valueSchema(spec: OptionSpec, flag = ""): Record<string, unknown> {
  if (TEMPLATE_KEYS.includes(flag)) return { oneOf: [{ type: "string" }, { type: "object" }] };
  switch (spec.type) {
    case "int":
      return { type: "integer", minimum: spec.min, maximum: spec.max };
    case "number":
      return { type: "number", minimum: spec.min, maximum: spec.max };
    case "int-list": {
      const item = { type: "integer", minimum: spec.min, maximum: spec.max };
      return { oneOf: [item, { type: "array", items: item, minItems: 1 }] };
    }
    case "enum":
      return { enum: [...spec.choices] };
    case "enum-list":
      return { type: "array", items: { enum: [...spec.choices] }, minItems: 1 };
    case "string":
      return spec.repeatable
        ? { oneOf: [{ type: "string" }, { type: "array", items: { type: "string" }, minItems: 1 }] }
        : { type: "string" };
    case "json":
      return {};
    case "boolean":
      return { type: "boolean" };
  }
}

/** The config file's JSON Schema (draft 2020-12): one property per flag of `table`, nothing else. */
export function configSchema(table: OptionTable, title: string): Record<string, unknown> {
  const properties: Record<string, unknown> = { $schema: { type: "string" } };
  for (const [flag, spec] of Object.entries(table)) {
    const shown = spec.defaultText ?? (spec.default === undefined ? undefined : JSON.stringify(spec.default));
    properties[flag] = {
      ...valueSchema(spec, flag),
      description: `${spec.describe}${shown === undefined ? "" : ` (default: ${shown})`}`,
    };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title,
    type: "object",
    properties,
    additionalProperties: false,
  };
}

/** The schema of catchup-bench.config.json: the bench flags but --config itself. */
export function benchConfigSchema(): Record<string, unknown> {
  const { config: _, ...options } = BENCH_OPTIONS;
  return configSchema(options, "catchup-bench bench options (catchup-bench.config.json)");
}

/** What a flag takes, in words, for an error message. */
function expected(spec: OptionSpec): string {
  switch (spec.type) {
    case "int":
      return `an integer from ${spec.min} to ${spec.max}`;
    case "number":
      return `a number from ${spec.min} to ${spec.max}`;
    case "int-list":
      return `an integer from ${spec.min} to ${spec.max}, or an array of them`;
    case "enum":
      return `one of ${spec.choices.map((c) => JSON.stringify(c)).join(", ")}`;
    case "enum-list":
      return `an array of ${spec.choices.map((c) => JSON.stringify(c)).join(", ")}`;
    case "string":
      return spec.repeatable ? "a string or an array of strings" : "a string";
    case "json":
      return "a JSON value";
    case "boolean":
      return "true or false";
  }
}

/** The value as yargs would hand it over (text as typed, a boolean for a switch), or null when the JSON type is wrong. */
function asRaw(spec: OptionSpec, v: unknown): unknown {
  const list = (xs: unknown[], ok: (x: unknown) => boolean) => (xs.length > 0 && xs.every(ok) ? xs.join(",") : null);
  switch (spec.type) {
    case "int":
    case "number":
      return typeof v === "number" ? String(v) : null;
    case "int-list":
      return typeof v === "number" ? String(v) : Array.isArray(v) ? list(v, (x) => typeof x === "number") : null;
    case "enum":
      return typeof v === "string" ? v : null;
    case "enum-list":
      return Array.isArray(v) ? list(v, (x) => typeof x === "string") : null;
    case "string":
      if (typeof v === "string") return v;
      return spec.repeatable && Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string") ? v : null;
    case "json":
      return JSON.stringify(v);
    case "boolean":
      return typeof v === "boolean" ? v : null;
  }
}

/** A file's value as written; JSON reads 1e400 as Infinity, which JSON.stringify would show as null. */
function shownValue(v: unknown): string {
  return typeof v === "number" && !Number.isFinite(v) ? "a number too large to hold" : JSON.stringify(v);
}

/**
 * A parsed config as raw flag values, checked key by key against `table` (the same checks as the
 * flag's own, with the file and key named); relative paths of PATH_FLAGS resolve from `baseDir`.
 */
export function configFlags(json: unknown, table: OptionTable, file: string, baseDir: string): Record<string, unknown> {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new UsageError(`${file}: must hold one JSON object of bench options (got ${JSON.stringify(json)})`);
  }
  const known = Object.keys(table);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === "$schema") continue;
    const spec = table[key];
    if (!spec) {
      const near = suggestFlag(key, known);
      throw new UsageError(
        `${file}: unknown key ${JSON.stringify(key)}${near ? ` (did you mean ${JSON.stringify(near)}?)` : ""}; the keys are the bench flags without their dashes: ${known.join(", ")}`,
      );
    }
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
    const raw = TEMPLATE_KEYS.includes(key) && isObject ? templateText(value) : asRaw(spec, value);
    const wrong = () => `key ${JSON.stringify(key)} in ${file} must be ${expected(spec)} (got ${shownValue(value)})`;
    if (raw === null) throw new UsageError(wrong());
    try {
      parseOption(key, spec, raw);
    } catch (e) {
      if (e instanceof UsageError) throw new UsageError(wrong());
      throw e;
    }
    const isPath =
      PATH_FLAGS.includes(key) || (key === "binding" && typeof raw === "string" && looksLikeModulePath(raw));
    out[key] = isPath && typeof raw === "string" && !isAbsolute(raw) ? resolve(baseDir, raw) : raw;
  }
  return out;
}

/**
 * The run's raw flags: the command line's where given, else the config's. --quick given on the
 * command line also replaces the config's values of the flags it presets (`quick`, the flags whose
 * values --quick replaces): a flag acts over the file, as --quick does over the defaults.
 */
export function withConfig(
  argv: Record<string, unknown>,
  config: Record<string, unknown>,
  quick: readonly string[] = [],
): Record<string, unknown> {
  const out = { ...argv };
  const quickFlag = argv.quick === true;
  for (const [key, value] of Object.entries(config)) {
    if (out[key] === undefined && !(quickFlag && quick.includes(key))) out[key] = value;
  }
  return out;
}

/** Where a run's raw flags came from: the config file, and the keys taken from it. */
export interface ConfigOrigin {
  file: string;
  keys: ReadonlySet<string>;
}

/** The keys of `config` that `raw` took (the others were given as flags, or replaced by --quick). */
export function originOf(
  file: string,
  config: Record<string, unknown>,
  argv: Record<string, unknown>,
  raw: Record<string, unknown>,
): ConfigOrigin {
  return { file, keys: new Set(Object.keys(config).filter((k) => argv[k] === undefined && raw[k] !== undefined)) };
}

/**
 * A flag's message with each flag that came from the file named as the file's key: `--token` as
 * `key "token" in FILE`, `--no-memory` as `key "memory": false in FILE`. Text inside double quotes
 * (a value quoted in the message) is left as it is.
 */
export function namedFromFile(message: string, origin: ConfigOrigin): string {
  if (origin.keys.size === 0) return message;
  return message
    .split(/("(?:[^"\\]|\\.)*")/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(/--(no-)?([a-z][a-z0-9-]*)/g, (flag, no: string | undefined, name: string) =>
            origin.keys.has(name) ? `key ${JSON.stringify(name)}${no ? ": false" : ""} in ${origin.file}` : flag,
          ),
    )
    .join("");
}

/** A config as a run uses it: its flags, and the file and digest the report names. */
export interface LoadedConfig {
  flags: Record<string, unknown>;
  file: string;
  sha256: string;
}

/**
 * The config a run reads: --config's file (which must exist), else CONFIG_FILE in `cwd` when there is
 * one, else null. A file that cannot be read or parsed is a usage error naming it.
 */
export function loadConfigFile(
  table: OptionTable,
  explicit: string | undefined,
  cwd: string,
  read: (path: string) => string = (path) => readRegularFile(path, 1024 * 1024),
): LoadedConfig | null {
  const file = resolve(cwd, explicit ?? CONFIG_FILE);
  if (explicit === undefined && !existsSync(file)) return null;
  // Named as given: --config's file, or the one found in the working directory.
  const named = explicit === undefined ? file : `--config ${file}`;
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`${named}: cannot read it (${why}); give a JSON file of bench options`);
  }
  let json: unknown;
  try {
    // A byte order mark (some Windows editors save JSON with one) is not part of the JSON.
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new UsageError(`${named}: not JSON (${(e as Error).message})`);
  }
  if (json !== null && typeof json === "object" && "config" in json) {
    throw new UsageError(`${file}: key "config" cannot be set inside a config file`);
  }
  return {
    flags: configFlags(json, table, file, dirname(file)),
    file,
    sha256: createHash("sha256").update(text).digest("hex"),
  };
}
