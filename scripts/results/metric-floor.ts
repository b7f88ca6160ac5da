// The practical floor as a rule each metric carries (pure): the smallest change a reviewer calls a
// change in that figure, a relative part (percent of the baseline's median) and an absolute part in
// the metric's own unit; a change must reach both, so the larger tolerance applies. --min-effect may
// replace either part, for every metric in a unit or for one metric. A floor whose absolute part
// reaches the baseline itself would make a lower figure impossible to call a change (and every
// interval inside it "the same"): such a cell is not judged. The metric table (metric-names.ts) says
// which rule each metric has; this module applies a rule and words it.

/** The units a floor has an absolute part in (the leak slope has its own threshold instead). */
export type FloorUnit = "ms" | "bytes";

/** A floor's size: relative (percent of the baseline's median) and absolute (in the metric's unit). */
export interface FloorSize {
  percent: number;
  absolute: number;
}

/** A metric's floor: its size, why a reviewer accepts it, and the least change point of its history series. */
export interface FloorRule extends FloorSize {
  /** Why a smaller change is no practical change in this figure (docs/statistics.md). */
  why: string;
  /** The least change a change point of its history series must show (verdicts/series-floor.ts). */
  series: FloorSize;
}

/**
 * --min-effect as given: each part replaces that part of every floor (`percent` of all, `bytes` and
 * `ms` the absolute part of the metrics in that unit); `metrics` gives parts for one metric alone.
 */
export interface MinEffect {
  percent?: number;
  bytes?: number;
  ms?: number;
  metrics?: Record<string, Partial<FloorSize>>;
}

const MIB = 1024 * 1024;

/** No --min-effect: every metric's own floor. */
export const DEFAULT_MIN_EFFECT: MinEffect = {};

/** A metric's floor under --min-effect: the metric's own parts, then its unit's, then the rule's. */
export function floorSize(metric: string, rule: FloorSize, unit: FloorUnit, m: MinEffect): FloorSize {
  const own = m.metrics?.[metric] ?? {};
  return { percent: own.percent ?? m.percent ?? rule.percent, absolute: own.absolute ?? m[unit] ?? rule.absolute };
}

/**
 * The widest |ratio − 1| still inside a floor at a baseline median: the larger of its two parts (a
 * change below either is below the floor); without a baseline the relative part alone. Null when the
 * floor reaches the baseline itself (a tolerance of 100% or more: no lower figure could leave it).
 */
export function toleranceAt(floor: FloorSize, baseline: number | null): number | null {
  const relative = floor.percent / 100;
  const t = baseline !== null && baseline > 0 ? Math.max(relative, floor.absolute / baseline) : relative;
  return t >= 1 ? null : t;
}

/** A floor's absolute part as the reports state it: "1 MiB", "64 KiB", "1 ms", "0.1 ms". */
export function absoluteFloorText(value: number, unit: FloorUnit): string {
  if (unit === "ms") return `${+value.toFixed(3)} ms`;
  return value >= MIB ? `${+(value / MIB).toFixed(2)} MiB` : `${+(value / 1024).toFixed(2)} KiB`;
}

/** A size in the terms of a floor's absolute part: MiB (2 places) beside a floor of a MiB or more, else KiB; ms likewise. */
function sizeText(value: number, unit: FloorUnit, floor: number): string {
  if (unit === "ms") return `${value.toFixed(floor >= 1 ? 1 : 2)} ms`;
  return floor >= MIB ? `${(value / MIB).toFixed(2)} MiB` : `${(value / 1024).toFixed(1)} KiB`;
}

/**
 * Why a median paired ratio is below the floor, with its size and the part of the floor it is under
 * ("−16.7% (0.24 MiB, under the 1 MiB floor)"), or null when the change is large enough to speak of.
 * `baseline`: the baseline's median in the cell, in `unit` (the change's absolute size is
 * |ratio − 1| × baseline); without it only the relative part applies.
 */
export function belowFloorText(
  ratio: number,
  baseline: number | null,
  floor: FloorSize,
  unit: FloorUnit,
): string | null {
  const rel = Math.abs(ratio - 1) * 100;
  const abs = baseline === null ? null : Math.abs(ratio - 1) * baseline;
  const relBelow = rel < floor.percent;
  const absBelow = abs !== null && abs < floor.absolute;
  if (!relBelow && !absBelow) return null;
  const relative = `${+floor.percent.toFixed(3)}%`;
  const absolute = absoluteFloorText(floor.absolute, unit);
  const under = relBelow && absBelow ? `${relative} and ${absolute} floors` : `${relBelow ? relative : absolute} floor`;
  const size = abs === null ? "" : `${sizeText(abs, unit, floor.absolute)}, `;
  return `${ratio < 1 ? "−" : "+"}${rel.toFixed(1)}% (${size}under the ${under})`;
}

/** Why a cell is not judged: the floor reaches its baseline ("the 1 MiB floor, a baseline of 0.85 MiB"). */
export function aboveBaselineText(floor: FloorSize, baseline: number, unit: FloorUnit): string {
  const part = floor.percent >= 100 ? `${+floor.percent.toFixed(3)}%` : absoluteFloorText(floor.absolute, unit);
  return `floor above the baseline (the ${part} floor, a baseline median of ${sizeText(baseline, unit, floor.absolute)})`;
}

/**
 * --min-effect as the reports state it: "per metric" with nothing given, the three parts as before
 * when a run recorded all three ("1%, 1 MiB, 1 ms"), else "per metric, with" what was given.
 * `unitOf`: a metric's floor unit, to state its own absolute part.
 */
export function minEffectText(m: MinEffect, unitOf: (metric: string) => FloorUnit): string {
  const percent = (p: number | undefined) => (p === undefined ? null : `${+p.toFixed(3)}%`);
  const parts = [
    percent(m.percent),
    m.bytes !== undefined ? absoluteFloorText(m.bytes, "bytes") : null,
    m.ms !== undefined ? absoluteFloorText(m.ms, "ms") : null,
  ];
  const own = Object.entries(m.metrics ?? {}).map(([metric, f]) => {
    const absolute = f.absolute === undefined ? null : absoluteFloorText(f.absolute, unitOf(metric));
    return `${metric} ${[percent(f.percent), absolute].filter((x) => x !== null).join(" and ")}`;
  });
  if (parts.every((p) => p !== null) && own.length === 0) return parts.join(", ");
  const given = [...parts.filter((p): p is string => p !== null), ...own];
  return given.length === 0 ? "per metric" : `per metric, with ${given.join(", ")}`;
}

/** What runs before per-metric floors recorded when --min-effect was not given: the one floor of every metric then. */
const OLD_DEFAULT = { percent: 1, bytes: MIB, ms: 1 };

/**
 * The floor as a run's config records it (bench writes `minEffect` there); nothing recorded, or the
 * one floor runs recorded before per-metric floors when none was given (1%, 1 MiB, 1 ms): none given,
 * so such a run is re-judged with each metric's own floor.
 */
export function minEffectFromConfig(config: Record<string, unknown>): MinEffect {
  const m = config.minEffect as MinEffect | undefined;
  const ok = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v >= 0;
  if (!m || typeof m !== "object") return DEFAULT_MIN_EFFECT;
  const old =
    Object.keys(m).length === 3 && Object.entries(OLD_DEFAULT).every(([k, v]) => m[k as keyof MinEffect] === v);
  if (old) return DEFAULT_MIN_EFFECT;
  const out: MinEffect = {};
  if (ok(m.percent)) out.percent = m.percent;
  if (ok(m.bytes)) out.bytes = m.bytes;
  if (ok(m.ms)) out.ms = m.ms;
  const metrics = Object.entries(m.metrics && typeof m.metrics === "object" ? m.metrics : {}).flatMap(([k, f]) => {
    const size: Partial<FloorSize> = {};
    if (ok(f?.percent)) size.percent = f.percent;
    if (ok(f?.absolute)) size.absolute = f.absolute;
    return Object.keys(size).length > 0 ? [[k, size] as const] : [];
  });
  return metrics.length > 0 ? { ...out, metrics: Object.fromEntries(metrics) } : out;
}
