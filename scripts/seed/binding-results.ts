// What a binding's calls must return, checked where they return it: a value of the wrong kind is
// named there, with the binding, the call and the field, rather than surfacing later as something
// else (a token that is a number as the server's HTTP 401; a count that is a string as "holds 20
// projects, the fixture 20"). Pure.
import type { SnapshotSummary } from "../../bindings/binding.js";
import { described, literal } from "./binding-call.js";

/** The token prepare returned (null: none), or the reason it is not one. */
export function preparedToken(v: unknown, call: string): { token: string | null } | { error: string } {
  if (v === undefined || v === null) return { token: null };
  if (typeof v !== "object" || Array.isArray(v)) {
    return { error: `${call} returned ${described(v)}: it must return {token} or nothing` };
  }
  const token = (v as { token?: unknown }).token;
  if (token === undefined || token === null) return { token: null };
  if (typeof token !== "string" || token === "") {
    return { error: `${call} returned ${literal(v)}: token must be a non-empty string (got ${described(token)})` };
  }
  return { token };
}

/**
 * Why `v` is not the sequence a write returns after `last` (0: the first write), or null; `tail` says
 * what `last` is when it is not the previous write's.
 */
export function sequenceProblem(
  v: unknown,
  last: number,
  call: string,
  tail = `not above the previous write's ${last}`,
): string | null {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) {
    return `${call} returned ${described(v)}: it must return the sequence the server assigned, a whole number`;
  }
  if (last === 0 && v <= 0) {
    return `${call} returned sequence ${v}: sequences must start above 0 (a resume cursor of 0 means "from the start")`;
  }
  if (v <= last) return `${call} returned sequence ${v}, ${tail}`;
  return null;
}

const SUMMARY_FIELDS = ["projects", "scriptBytes", "sequence"] as const;

/** summarize's result, or the reason it is not a SnapshotSummary (naming the first wrong field). */
export function checkedSummary(v: unknown, call: string): { summary: SnapshotSummary } | { error: string } {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    return { error: `${call} returned ${described(v)}: it must return {projects, scriptBytes, sequence}` };
  }
  const o = v as Record<string, unknown>;
  for (const field of SUMMARY_FIELDS) {
    const x = o[field];
    if (typeof x !== "number" || !Number.isSafeInteger(x) || x < 0) {
      return { error: `${call} returned ${literal(v)}: ${field} must be a whole number >= 0 (got ${described(x)})` };
    }
  }
  return {
    summary: { projects: o.projects as number, scriptBytes: o.scriptBytes as number, sequence: o.sequence as number },
  };
}
