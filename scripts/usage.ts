// Usage errors: bad flags or inputs. The CLI prints the message on one line and exits 2.
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** An integer flag within [min, max]; the message names the flag and the allowed range. */
export function intFlag(flag: string, value: unknown, min: number, max: number): number {
  const n =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return n;
}

/** A number flag within [min, max] (fractions allowed). */
export function numberFlag(flag: string, value: unknown, min: number, max: number): number {
  const n =
    typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
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
 * Makes sure `path` is a directory this process can write, creating missing levels one at a time
 * (Node's recursive mkdir spins forever under /proc), and proves it by creating and removing a probe
 * file. Throws a UsageError naming the flag and the path otherwise.
 */
export function writableDirFlag(flag: string, path: string): string {
  const abs = resolve(path);
  const missing: string[] = [];
  let p = abs;
  while (!existsSync(p)) {
    missing.unshift(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  const created: string[] = [];
  try {
    for (const dir of missing) {
      mkdirSync(dir);
      created.unshift(dir);
    }
    if (!statSync(abs).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    const probe = join(abs, `.catchup-write-test-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe, { force: true });
  } catch (e) {
    // Leave nothing half-made behind.
    for (const dir of created) rmSync(dir, { recursive: true, force: true });
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UsageError(`--${flag} must be a writable directory (${abs}: ${code})`);
  }
  return abs;
}
