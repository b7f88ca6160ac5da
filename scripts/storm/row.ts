import type { StormFigures, StormRow } from "../results/storm-record.js";
// The results row of one storm cell (N clients at once against one fresh server of one variant).

/** A storm row from its figures and measurements. */
export function stormRow(
  base: Pick<
    StormRow,
    "variant" | "clients" | "scriptBytes" | "rampMs" | "resumeRatio" | "trial" | "aa" | "sessionTimeoutMs"
  >,
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
