// Test aid: parts of the report model built whole and typed from a few overrides (pure). A field the
// model gains is a type error here, in one place, never a property silently missing behind a cast in
// a test. Figures not given are null; metric medians come from the metric table's keys.
import type { LatencyCaseModel, Medians, MemoryCellModel, Pair } from "../../scripts/report/model.js";
import {
  LATENCY_METRICS,
  type LatencyMetric,
  MEMORY_METRICS,
  type MemoryMetric,
} from "../../scripts/results/metric-names.js";

const unmeasured = (): Pair<number | null> => ({ baseline: null, candidate: null });

/** Every metric of `keys` unmeasured, then the given medians. */
function mediansOf<K extends string>(keys: readonly K[], given: Partial<Medians<K>>): Medians<K> {
  return { ...(Object.fromEntries(keys.map((k) => [k, unmeasured()])) as Medians<K>), ...given };
}

/** One trial's point of a latency chart: the given figures, every other latency metric null. */
export function trialPoint(
  trial: number,
  values: Partial<Record<LatencyMetric, number | null>>,
): LatencyCaseModel["points"]["baseline"][number] {
  const all = Object.fromEntries(LATENCY_METRICS.map((m) => [m, null])) as Record<LatencyMetric, number | null>;
  return { trial, values: { ...all, ...values } };
}

/** A latency case's model: nothing measured unless given. */
export function latencyCaseModel(
  given: Partial<Omit<LatencyCaseModel, "medians">> & { medians?: Partial<Medians<LatencyMetric>> } = {},
): LatencyCaseModel {
  const base: LatencyCaseModel = {
    case: "snapshot",
    label: "snapshot",
    trials: { baseline: 0, candidate: 0 },
    medians: mediansOf(LATENCY_METRICS, {}),
    chunks: { baseline: [], candidate: [] },
    ratio: null,
    points: { baseline: [], candidate: [] },
    targetCpuMs: unmeasured(),
  };
  return { ...base, ...given, medians: mediansOf(LATENCY_METRICS, given.medians ?? {}) };
}

/** A memory cell's model (8 KiB scripts, 4 clients, resume unless given): nothing measured unless given. */
export function memoryCellModel(
  given: Partial<Omit<MemoryCellModel, "medians">> & { medians?: Partial<Medians<MemoryMetric>> } = {},
): MemoryCellModel {
  const base: MemoryCellModel = {
    key: "8192/4/memory",
    scriptBytes: 8192,
    clients: 4,
    mode: "memory",
    trials: { baseline: 0, candidate: 0 },
    medians: mediansOf(MEMORY_METRICS, {}),
    bytesThroughCompletion: unmeasured(),
    interval: { baseline: null, candidate: null },
    heapInterval: { baseline: null, candidate: null },
    heapGapMaxMs: unmeasured(),
    targetCpuMs: unmeasured(),
    samplesFile: { baseline: null, candidate: null },
    trialFiles: { baseline: [], candidate: [] },
    rssSplit: { baseline: null, candidate: null },
  };
  return { ...base, ...given, medians: mediansOf(MEMORY_METRICS, given.medians ?? {}) };
}
