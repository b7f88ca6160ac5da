// The storm rows of results.json: one per storm cell and trial (N clients at once against one fresh server).

/** Why a storm client failed, from its session's error text. */
export type StormFailureKind = "upgrade-refused" | "timeout" | "closed-early" | "other";

export const FAILURE_KINDS: readonly StormFailureKind[] = ["upgrade-refused", "timeout", "closed-early", "other"];

export interface StormFigures {
  clients: number;
  /** Clients that caught up (completion frame received) and closed cleanly. */
  ok: number;
  failed: number;
  failures: Record<StormFailureKind, number>;
  completionMsP50: number | null;
  completionMsP99: number | null;
  completionMsMax: number | null;
  /** From the storm's first connect to the last ok client's completion frame; null unless every client caught up. */
  allCaughtUpMs: number | null;
}

/** The figures (ok, failed, failures, completion percentiles, allCaughtUpMs) plus the cell and its measurements. */
export interface StormRow extends StormFigures {
  variant: string;
  scriptBytes: number;
  rampMs: number;
  /** Share of clients that resumed from a cursor (the rest took a cold snapshot). */
  resumeRatio: number;
  trial: number;
  /** The A/A copy of the baseline (run in the same rounds), whose pairs with the baseline give each cell's noise band. */
  aa?: true;
  peakHeapBytes: number | null;
  peakRssBytes: number | null;
  hwmRssBytes: number | null;
  postGcHeapBytes: number | null;
  probeMaxMs: number | null;
  /** Each client's session deadline from its connect (--storm-timeout-ms); absent in runs before it. */
  sessionTimeoutMs?: number;
  /** The driver's worst worker event-loop lag p99 during the storm (ms): a slow driver is not a slow server. */
  driverLoopLagMs: number | null;
  /** Worker threads that ran the clients. */
  driverWorkers?: number;
  /** The limits stated before the storm (descriptors, backlog). */
  limits?: string;
  samplesFile: string | null;
  /**
   * For the report's chart: [ms since the storm began, server RSS MiB or null, clients caught up or
   * null], thinned to a few hundred points (the samples file keeps every sample).
   */
  timeline?: Array<[number, number | null, number | null]>;
  /** Why the cell is incomplete (the first failed clients' errors, a dead server), or null. */
  error: string | null;
}
