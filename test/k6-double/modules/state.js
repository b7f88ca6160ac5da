// TEST AID, not k6. State shared by the double's modules and its runner (one per process). Each
// iteration runs in its own async context (AsyncLocalStorage), so its sockets and timers, its
// execution ids and a listener's error belong to that iteration even while other VUs run.
import { AsyncLocalStorage } from "node:async_hooks";

const KEY = Symbol.for("catchup-bench.k6-double");

/**
 * @typedef {{ vu: number, vuInInstance: number, iterationInTest: number, iterationInInstance: number,
 *   iterationInScenario: number, scenario: string, executor: string, pending: Set<unknown>,
 *   idleWaiters: Array<() => void>, fail: (error: unknown) => void }} IterationContext
 */

/**
 * @returns {{ stage: "init" | "setup" | "vu" | "teardown" | "summary", options: Record<string, unknown>, samples: Array<{metric: string, type: string, isTime: boolean, value: number, tags: Record<string, string>}>,
 *   metrics: Map<string, {type: string, isTime: boolean}>, abort: ((reason?: string) => void) | null,
 *   context: AsyncLocalStorage<IterationContext>, fatal: (reason: string) => void }}
 */
export function state() {
  globalThis[KEY] ??= {
    stage: "init",
    options: {},
    samples: [],
    metrics: new Map(),
    abort: null,
    context: new AsyncLocalStorage(),
    // Something real k6 would not survive (it would hang): the runner reports it and exits non-zero.
    fatal: (reason) => {
      throw new Error(reason);
    },
  };
  return globalThis[KEY];
}

/** A Go panic in k6: its root command recovers it, exit 109 (internal/cmd/root.go:190-193 at v2.2.0). */
export class K6Panic extends Error {
  exitCode = 109;
  constructor(what) {
    super(`unexpected k6 panic: ${what}`);
  }
}

/** In the init context: module top level (no iteration, not setup or teardown), where k6 has no VU state. */
export function inInit() {
  return current() === null && state().stage === "init";
}

/** The running iteration's context, or null outside one (init, setup, teardown). */
export function current() {
  return state().context.getStore() ?? null;
}

/** Marks a socket or timer as keeping its iteration alive. */
export function track(handle) {
  current()?.pending.add(handle);
}

/** Releases a handle; wakes whoever waits for its iteration to go idle. */
export function untrack(handle, ctx = current()) {
  if (!ctx) return;
  ctx.pending.delete(handle);
  if (ctx.pending.size === 0) for (const wake of ctx.idleWaiters.splice(0)) wake();
}

/** Resolves once none of the iteration's sockets or timers are pending. */
export function whenIdle(ctx) {
  if (ctx.pending.size === 0) return Promise.resolve();
  return new Promise((resolve) => ctx.idleWaiters.push(resolve));
}
