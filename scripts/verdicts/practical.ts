// What a reader may call a change (pure): a practical floor below which a measured difference is "no
// practical change" when its interval lies inside it too (a 0.2% lower post-GC heap is real but means
// nothing; a median inside the floor with an interval reaching 20% is not "no change"), and
// the effects the change under test is expected to have (one chunk instead of four: the first chunk
// is the whole catch-up, so it arrives later), which are shown as such rather than as regressions.
import { type JudgedMetric, metricOf } from "../results/metric-names.js";

/** The practical floor: a change must reach both the relative and the metric's absolute size. */
export interface MinEffect {
  /** Relative change, percent (1 = 1%). */
  percent: number;
  /** Absolute change of a memory figure, bytes. */
  bytes: number;
  /** Absolute change of a latency figure, ms. */
  ms: number;
}

export const DEFAULT_MIN_EFFECT: MinEffect = { percent: 1, bytes: 1024 * 1024, ms: 1 };

/** "1%, 1 MiB, 1 ms": the floor as the reports state it. */
export function minEffectText(m: MinEffect): string {
  return `${+m.percent.toFixed(3)}%, ${absoluteFloorText("bytes", m)}, ${absoluteFloorText("ms", m)}`;
}

/** The floor's absolute part in a unit: "1 MiB", "512 KiB", "1 ms". */
function absoluteFloorText(unit: FloorUnit, m: MinEffect): string {
  if (unit === "ms") return `${+m.ms.toFixed(3)} ms`;
  return m.bytes >= 1024 * 1024
    ? `${+(m.bytes / (1024 * 1024)).toFixed(2)} MiB`
    : `${+(m.bytes / 1024).toFixed(2)} KiB`;
}

/** The floor as recorded in a run's config (bench writes `minEffect` there), else the default. */
export function minEffectFromConfig(config: Record<string, unknown>): MinEffect {
  const m = config.minEffect as Partial<MinEffect> | undefined;
  const ok = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
  if (!m || typeof m !== "object") return DEFAULT_MIN_EFFECT;
  return {
    percent: ok(m.percent) ? m.percent : DEFAULT_MIN_EFFECT.percent,
    bytes: ok(m.bytes) ? m.bytes : DEFAULT_MIN_EFFECT.bytes,
    ms: ok(m.ms) ? m.ms : DEFAULT_MIN_EFFECT.ms,
  };
}

/** The units a practical floor has an absolute part in (the leak slope has its own threshold instead). */
export type FloorUnit = "ms" | "bytes";

/** A change's absolute size as its unit shows it: "0.25 MiB", "7.0 ms". */
function absoluteText(value: number, unit: FloorUnit): string {
  return unit === "bytes" ? `${(value / (1024 * 1024)).toFixed(2)} MiB` : `${value.toFixed(1)} ms`;
}

/**
 * The widest |ratio - 1| that is still below the floor: a change is below it when it misses either
 * the relative or the absolute size (belowFloor's rule), so the larger tolerance applies. Without a
 * baseline only the relative floor does. `unit`: the metric's own (unitOf in results/metric-names.ts).
 */
export function floorTolerance(baseline: number | null, unit: FloorUnit, floor: MinEffect): number {
  const abs = unit === "bytes" ? floor.bytes : floor.ms;
  const relative = floor.percent / 100;
  return baseline !== null && baseline > 0 ? Math.max(relative, abs / baseline) : relative;
}

/**
 * Why a median paired ratio is below the floor, with its size and the part of the floor it is under
 * ("−16.7% (0.24 MiB, under the 1 MiB floor)"), or null when the change is large enough to speak of.
 * `baseline` is the baseline's median in the cell (the absolute size of the change is
 * |ratio - 1| x baseline), in `unit`; without it only the relative floor applies.
 */
export function belowFloor(ratio: number, baseline: number | null, unit: FloorUnit, floor: MinEffect): string | null {
  const rel = Math.abs(ratio - 1) * 100;
  const abs = baseline === null ? null : Math.abs(ratio - 1) * baseline;
  const relBelow = rel < floor.percent;
  const absBelow = abs !== null && abs < (unit === "bytes" ? floor.bytes : floor.ms);
  if (!relBelow && !absBelow) return null;
  const relative = `${+floor.percent.toFixed(3)}%`;
  const absolute = absoluteFloorText(unit, floor);
  const under = relBelow && absBelow ? `${relative} and ${absolute} floors` : `${relBelow ? relative : absolute} floor`;
  const size = abs === null ? "" : `${absoluteText(abs, unit)}, `;
  return `${ratio < 1 ? "−" : "+"}${rel.toFixed(1)}% (${size}under the ${under})`;
}

/**
 * The expected effect of delivering the catch-up in fewer chunks: the first chunk then carries all of
 * it and arrives later. A higher figure the metric table marks laterWithFewerChunks (firstChunkMs)
 * where the candidate sends fewer chunks is that effect, not a regression; returns the reason to
 * show, or null.
 */
export function expectedEffect(
  metric: JudgedMetric,
  chunks: { baseline: number | null; candidate: number | null },
): string | null {
  if (metricOf(metric).laterWithFewerChunks !== true) return null;
  const { baseline, candidate } = chunks;
  if (baseline === null || candidate === null || candidate >= baseline) return null;
  return `expected: ${baseline} → ${candidate} chunks, so the first chunk carries more of the catch-up`;
}
