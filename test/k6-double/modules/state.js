// TEST AID, not k6. State shared by the double's modules and its runner (one per process).
const KEY = Symbol.for("catchup-bench.k6-double");

/**
 * @returns {{ stage: "init" | "vu" | "summary", samples: Array<{metric: string, type: string, isTime: boolean, value: number, tags: Record<string, string>}>,
 *   metrics: Map<string, {type: string, isTime: boolean}>, pending: Set<unknown>, vu: number, iterationInTest: number,
 *   iterationInScenario: number, scenario: string, abort: ((reason?: string) => void) | null,
 *   idleWaiters: Array<() => void>, fatal: (reason: string) => void }}
 */
export function state() {
  globalThis[KEY] ??= {
    stage: "init",
    samples: [],
    metrics: new Map(),
    pending: new Set(),
    vu: 0,
    iterationInTest: 0,
    iterationInScenario: 0,
    scenario: "default",
    abort: null,
    idleWaiters: [],
    // Something real k6 would not survive (it would hang): the runner reports it and exits non-zero.
    fatal: (reason) => {
      throw new Error(reason);
    },
  };
  return globalThis[KEY];
}

/** Marks a socket or timer as keeping the iteration alive. */
export function track(handle) {
  state().pending.add(handle);
}

/** Releases a handle; wakes whoever waits for the iteration to go idle. */
export function untrack(handle) {
  const s = state();
  s.pending.delete(handle);
  if (s.pending.size === 0) for (const wake of s.idleWaiters.splice(0)) wake();
}

/** Resolves once no sockets or timers are pending. */
export function whenIdle() {
  const s = state();
  if (s.pending.size === 0) return Promise.resolve();
  return new Promise((resolve) => s.idleWaiters.push(resolve));
}
