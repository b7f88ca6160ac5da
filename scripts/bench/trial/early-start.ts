// A memory trial's server started ahead. Where this process may raise a priority back (root), the
// next trial's fresh server starts as the current trial begins, at the lowest priority (nice 19) and
// unpinned, so its start-up takes only CPU time the measured trial leaves idle; once ready it waits
// without work (no warm-up session) until its own trial gives it the normal priority and its CPU.
// Elsewhere it starts once the current trial's sampler stopped, overlapping only the settling
// (forced GC, post-GC heap, stop). Each trial still gets its own server process, never one another
// trial used.

/** A started (or failed) server and what starting it cost. */
export interface Started<Server> {
  server: Server | null;
  error: string | null;
  copyMs: number;
  startMs: number;
}

export interface EarlyStarts<Trial, Server> {
  /** Starts trial's server now, unless one is already ahead. */
  ahead(trial: Trial): void;
  /** trial's server: the one started ahead for it (early), else one started now. */
  take(trial: Trial): { started: Promise<Started<Server>>; early: boolean };
  /** Stops a server started ahead that no trial took (the run stopped, or the plan changed). */
  discard(): Promise<void>;
}

export function earlyStarts<Trial, Server>(
  start: (trial: Trial) => Promise<Started<Server>>,
  stop: (server: Server) => Promise<unknown>,
): EarlyStarts<Trial, Server> {
  let pending: { trial: Trial; started: Promise<Started<Server>> } | null = null;
  const discard = async () => {
    const p = pending;
    pending = null;
    const s = await p?.started;
    if (s?.server) await stop(s.server);
  };
  return {
    ahead(trial) {
      if (!pending) pending = { trial, started: start(trial) };
    },
    take(trial) {
      if (pending && pending.trial === trial) {
        const { started } = pending;
        pending = null;
        return { started, early: true };
      }
      void discard();
      return { started: start(trial), early: false };
    },
    discard,
  };
}
