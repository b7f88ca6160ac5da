// The results row of one storm cell (N clients at once against one fresh server of one variant).
import type { StormFigures } from "./figures.js";

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

/** A storm row from its figures and measurements. */
export function stormRow(
  base: Pick<StormRow, "variant" | "clients" | "scriptBytes" | "rampMs" | "resumeRatio" | "trial" | "aa">,
  figures: StormFigures | null,
  m: Partial<StormRow>,
): StormRow {
  return {
    ...base,
    ok: figures?.ok ?? 0,
    failed: figures?.failed ?? base.clients,
    failures: figures?.failures ?? { "upgrade-refused": 0, timeout: 0, "closed-early": 0, other: base.clients },
    completionMsP50: figures?.completionMsP50 ?? null,
    completionMsP99: figures?.completionMsP99 ?? null,
    completionMsMax: figures?.completionMsMax ?? null,
    allCaughtUpMs: figures?.allCaughtUpMs ?? null,
    peakHeapBytes: null,
    peakRssBytes: null,
    hwmRssBytes: null,
    postGcHeapBytes: null,
    probeMaxMs: null,
    driverLoopLagMs: null,
    samplesFile: null,
    error: null,
    ...m,
  };
}
