// Every call into a binding (loading its module, prepare, each write, summarize) goes through here:
// it has a deadline (--binding-timeout-ms), a stop (Ctrl-C) ends it at once, a call that runs long
// says so, and whatever the binding throws is said in words (a thrown `undefined` too). A call that
// can never settle is listed as a pending wait, so the CLI can say what it waited on.
import { waitingOn } from "../util/pending.js";

export interface CallLimits {
  /** 0: no deadline. */
  timeoutMs: number;
  /** Aborted by a stop: the call rejects at once with the signal's reason. */
  signal?: AbortSignal;
  /** "still waiting" lines while the call runs long. */
  log?: (line: string) => void;
}

export interface CallName {
  /** "the notes binding's write" */
  name: string;
  /** What the call is about, after the name in "still waiting" lines: " of event 15 (project.created)". */
  detail?: string;
  /** Where, in a pending wait: "seed: a on small.sqlite". */
  where?: string;
}

/**
 * A call that threw, rejected or did not settle. `fromBinding`: the message is the binding's own
 * Error's (the caller says which call failed); else it already names the call.
 */
export class BindingCallError extends Error {
  constructor(
    message: string,
    readonly fromBinding = false,
  ) {
    super(message);
  }
}

/** A call that did not settle within --binding-timeout-ms. */
export class BindingTimeoutError extends BindingCallError {}

/** "still waiting" lines at these seconds into a call. */
const STILL_WAITING_S = [5, 10, 20, 40, 80, 160, 320, 640];

/** `v` as a person reads it, with its kind: `the string "20"`, `the number 12345`, `undefined`, `an object {…}`. */
export function described(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)}`;
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return `the ${typeof v} ${String(v)}`;
  if (typeof v === "function") return "a function";
  return `${Array.isArray(v) ? "an array" : "an object"} ${literal(v)}`;
}

/** `v` written as a short JS literal: {token: 12345}, [1, 2], "x" (clipped at 160 characters). */
export function literal(v: unknown): string {
  const text = literalOf(v, 0);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

function literalOf(v: unknown, depth: number): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") return "function";
  if (v === null || typeof v !== "object") return String(v);
  if (depth > 2) return Array.isArray(v) ? "[…]" : "{…}";
  if (Array.isArray(v)) return `[${v.map((x) => literalOf(x, depth + 1)).join(", ")}]`;
  const entries = Object.entries(v).map(
    ([k, x]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literalOf(x, depth + 1)}`,
  );
  return `{${entries.join(", ")}}`;
}

/** What a call threw, as an error: an Error's own message, else what was thrown, naming the call. */
export function thrownError(e: unknown, name: string): BindingCallError {
  if (e !== null && typeof e === "object" && typeof (e as Error).message === "string") {
    const { message, name: kind } = e as Error;
    if (message !== "") return new BindingCallError(message, true);
    return new BindingCallError(`${name} threw ${kind || "an Error"} with no message`);
  }
  return new BindingCallError(`${name} threw ${described(e)} (not an Error)`);
}

/** Runs `call` under the limits; rejects with a BindingCallError naming it, or with the stop's reason. */
export async function callBinding<T>(call: () => T | Promise<T>, n: CallName, limits: CallLimits): Promise<T> {
  const { signal } = limits;
  if (signal?.aborted) throw signal.reason;
  const timers: NodeJS.Timeout[] = [];
  let onAbort: () => void = () => undefined;
  const started = performance.now();
  const work = Promise.resolve()
    .then(call)
    .catch((e: unknown) => {
      throw thrownError(e, n.name);
    });
  const ends = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (limits.timeoutMs > 0) {
      const why = `${n.name} did not settle within ${limits.timeoutMs} ms (--binding-timeout-ms)`;
      timers.push(setTimeout(() => reject(new BindingTimeoutError(why)), limits.timeoutMs));
    }
    // Not a reason to stay alive: a call nothing can settle ends the process, and the CLI names it.
    for (const s of STILL_WAITING_S) {
      if (limits.timeoutMs > 0 && s * 1000 >= limits.timeoutMs) break;
      const t = setTimeout(() => {
        const after = Math.round((performance.now() - started) / 1000);
        limits.log?.(`still waiting on ${n.name}${n.detail ?? ""} after ${after} s`);
      }, s * 1000);
      timers.push(t.unref());
    }
  });
  ends.catch(() => undefined);
  const pending = `${n.name}${n.detail ?? ""}${n.where ? ` (${n.where})` : ""}`;
  try {
    return await waitingOn(pending, Promise.race([work, ends]));
  } finally {
    for (const t of timers) clearTimeout(t);
    signal?.removeEventListener("abort", onAbort);
  }
}
