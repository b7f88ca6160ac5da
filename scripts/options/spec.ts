// The shape of an options table, and the one function that validates raw flag values against it.
// Each command declares its flags once (scripts/options/<command>.ts); the yargs options, `--help`,
// docs/cli.md and the validation all come from that table. Pure: no files, no processes.
import { enumFlag, intFlag, jsonFlag, listFlag, numberFlag, UsageError } from "../util/usage.js";

interface Base {
  /** One line of help text; the type, range and default are appended from the table. */
  describe: string;
  /** Shown instead of the default value in help and docs (e.g. "3 (1 with --quick)"). */
  defaultText?: string;
  /** Heading the flag is listed under in --help and docs/cli.md. */
  group?: string;
}

export type OptionSpec =
  | (Base & { type: "int"; min: number; max: number; default?: number })
  | (Base & { type: "number"; min: number; max: number; default?: number })
  | (Base & { type: "int-list"; min: number; max: number; default?: readonly number[] })
  | (Base & { type: "enum"; choices: readonly string[]; default?: string })
  | (Base & { type: "enum-list"; choices: readonly string[]; default?: readonly string[] })
  | (Base & { type: "string"; default?: string; repeatable?: boolean; allowEmpty?: boolean; secret?: boolean })
  | (Base & { type: "json"; default?: string })
  | (Base & { type: "boolean"; default?: boolean });

export type OptionTable = Readonly<Record<string, OptionSpec>>;

export interface PositionalSpec {
  describe: string;
  choices?: readonly string[];
}

/** A command as the CLI, `--help` and docs/cli.md know it. */
export interface CommandSpec {
  /** yargs command string, e.g. "report <run>". */
  command: string;
  describe: string;
  positionals?: Readonly<Record<string, PositionalSpec>>;
  options: OptionTable;
  /** Extra lines for docs/cli.md (e.g. flags passed through to another program). */
  notes?: string;
}

type Value<S extends OptionSpec> = S extends { type: "int" | "number" }
  ? number
  : S extends { type: "int-list" }
    ? number[]
    : S extends { type: "enum"; choices: readonly (infer C)[] }
      ? C
      : S extends { type: "enum-list"; choices: readonly (infer C)[] }
        ? C[]
        : S extends { type: "string"; repeatable: true }
          ? string[]
          : S extends { type: "boolean" }
            ? boolean
            : S extends { type: "json" }
              ? unknown
              : string;

/** Validated values: a flag with a default always has a value; one without is undefined when absent. */
export type Flags<T extends OptionTable> = {
  -readonly [K in keyof T]: T[K] extends { default: unknown } ? Value<T[K]> : Value<T[K]> | undefined;
};

function once(flag: string, value: unknown): unknown {
  if (Array.isArray(value)) {
    throw new UsageError(`--${flag} may be given once (it was given ${value.length} times)`);
  }
  return value;
}

/** Validates one flag's raw value (a string as typed, or a boolean for switches). */
export function parseOption(flag: string, spec: OptionSpec, raw: unknown): unknown {
  switch (spec.type) {
    case "int":
      return intFlag(flag, once(flag, raw), spec.min, spec.max);
    case "number":
      return numberFlag(flag, once(flag, raw), spec.min, spec.max);
    case "int-list":
      return [...new Set(listFlag(flag, raw).map((s) => intFlag(flag, s, spec.min, spec.max)))];
    case "enum":
      return enumFlag(flag, once(flag, raw), spec.choices);
    case "enum-list":
      return [...new Set(listFlag(flag, raw).map((s) => enumFlag(flag, s, spec.choices)))];
    case "json":
      return jsonFlag(flag, once(flag, raw));
    case "boolean": {
      const v = once(flag, raw);
      if (typeof v === "boolean") return v;
      throw new UsageError(`--${flag} is a switch (use --${flag} or --no-${flag}; got ${JSON.stringify(v)})`);
    }
    case "string": {
      const values = (spec.repeatable ? (Array.isArray(raw) ? raw : [raw]) : [once(flag, raw)]).map(String);
      if (!spec.allowEmpty && values.some((s) => s.trim() === "")) throw new UsageError(`--${flag} must not be empty`);
      return spec.repeatable ? values : values[0];
    }
  }
}

function defaultOf(spec: OptionSpec): unknown {
  if (spec.default === undefined) return undefined;
  if (spec.type === "json") return JSON.parse(spec.default);
  return Array.isArray(spec.default) ? [...spec.default] : spec.default;
}

/**
 * Validates raw flag values (keyed by the flag as typed, kebab-case, as yargs leaves them) against a
 * table; an absent flag takes the table's default (or stays undefined). Keys not in the table are
 * ignored (yargs' own `_`, `$0`, positionals). Throws a UsageError naming the first bad flag.
 */
export function readFlags<T extends OptionTable>(table: T, raw: Record<string, unknown>): Flags<T> {
  const out: Record<string, unknown> = {};
  for (const [flag, spec] of Object.entries(table)) {
    out[flag] = raw[flag] === undefined ? defaultOf(spec) : parseOption(flag, spec, raw[flag]);
  }
  return out as Flags<T>;
}

/** True when the user gave the flag (as opposed to it taking its default). */
export function given(raw: Record<string, unknown>, flag: string): boolean {
  return raw[flag] !== undefined;
}

/** How the default is shown in --help and docs/cli.md; undefined when there is none to show. */
export function defaultShown(spec: OptionSpec): string | undefined {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined) return undefined;
  return Array.isArray(spec.default) ? spec.default.join(",") : String(spec.default);
}

/** The type as shown in docs/cli.md (help shows yargs' own labels). */
export function typeShown(spec: OptionSpec): string {
  switch (spec.type) {
    case "int":
      return `integer ${spec.min}–${spec.max}`;
    case "number":
      return `number ${spec.min}–${spec.max}`;
    case "int-list":
      return `list of integers ${spec.min}–${spec.max}`;
    case "enum":
      return `one of ${spec.choices.join(", ")}`;
    case "enum-list":
      return `list of ${spec.choices.join(", ")}`;
    case "json":
      return "JSON";
    case "boolean":
      return "switch";
    case "string":
      return spec.repeatable ? "text, repeatable" : "text";
  }
}
