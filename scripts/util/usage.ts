// Usage errors: bad flags or inputs. The CLI prints the message on one line and exits 2.
import { lstatSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export class UsageError extends Error {
  override readonly name = "UsageError";
}

// Decimal, with or without an exponent (1000, 1e3, 0.0000001, 1e-7: a JSON number as text is one of
// these): Number() would also take "0x10", "0b1", "Infinity", "" and " 7 ".
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** An integer flag within [min, max], written in decimal (1e3 is 1000); the message names the flag and the range. */
export function intFlag(flag: string, value: unknown, min: number, max: number): number {
  const n =
    typeof value === "number" ? value : typeof value === "string" && NUMBER_RE.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return n;
}

/** A decimal number flag within [min, max] (fractions and exponents allowed; no hex). */
export function numberFlag(flag: string, value: unknown, min: number, max: number): number {
  const n =
    typeof value === "number" ? value : typeof value === "string" && NUMBER_RE.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be a number from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return n;
}

/** One of a fixed set of values. */
export function enumFlag<T extends string>(flag: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${flag} must be one of ${allowed.join(", ")} (got ${JSON.stringify(value)})`);
  }
  return value as T;
}

/** A comma-separated list (also accepts repeated flags); empty items are an error. */
export function listFlag(flag: string, value: unknown): string[] {
  const raw = Array.isArray(value) ? value : [value];
  const items = raw.flatMap((v) => String(v).split(",")).map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === "")) {
    throw new UsageError(`--${flag} must be a comma-separated list with no empty items (got ${JSON.stringify(value)})`);
  }
  return items;
}

/** A JSON value; the message names the flag and quotes the parse error. */
export function jsonFlag(flag: string, value: unknown): unknown {
  try {
    return JSON.parse(String(value));
  } catch (e) {
    throw new UsageError(`--${flag} must be valid JSON (${(e as Error).message}; got ${JSON.stringify(value)})`);
  }
}

/**
 * Whether `p` names something that resolves. A symbolic link that points nowhere, or into a loop,
 * exists but cannot be followed: mkdir and open would fail on it later with a stack, so it is a
 * usage error here, naming the link.
 */
function entryExists(flag: string, path: string, p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    let link = false;
    if (code === "ENOENT" || code === "ELOOP") {
      try {
        link = lstatSync(p).isSymbolicLink();
      } catch {
        // nothing there (or a path under the link): its parent is checked next
      }
    }
    if (link) {
      const why = code === "ELOOP" ? "a loop of symbolic links (ELOOP)" : "a symbolic link to nothing (dangling)";
      throw new UsageError(`--${flag} ${resolve(path)}: ${p} is ${why}; remove it or point it at a directory`);
    }
    return false;
  }
}

/**
 * Checks that `path` is (or can become) a directory this process can write, WITHOUT creating it: the
 * nearest existing ancestor must be a directory that accepts a probe file (created and removed at
 * once). Failing early matters: Node's recursive mkdir spins forever under /proc. Throws a
 * UsageError naming the flag and the path. With of = "file", `path` is a file to be written and its
 * directory is checked.
 */
export function writableDirFlag(flag: string, path: string, of: "directory" | "file" = "directory"): string {
  const abs = resolve(of === "file" ? dirname(path) : path);
  let p = abs;
  while (!entryExists(flag, path, p) && dirname(p) !== p) p = dirname(p);
  try {
    if (!statSync(p).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    const probe = join(p, `.catchup-write-test-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe, { force: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    const what = of === "file" ? "a file path in a writable directory" : "a writable directory";
    throw new UsageError(`--${flag} must be ${what} (${resolve(path)}: ${code} at ${p})`);
  }
  return abs;
}
