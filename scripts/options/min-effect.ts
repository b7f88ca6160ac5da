// --min-effect: replaces parts of the metrics' own practical floors, e.g. "2%,1MiB,1ms" (each part for
// every metric: the relative one, the absolute one of byte figures, of ms figures) or
// "probeMs=0.5ms,retainedHeapBytes=5%" (one metric's part); any of them, in any order. What it does
// not give stays each metric's own (results/metric-names.ts). Pure: one clear line naming the flag and
// the allowed forms for bad input.

import type { FloorUnit, MinEffect } from "../results/metric-floor.js";
import { floorUnitOf, JUDGED_METRICS, type JudgedMetric, metricOf } from "../results/metric-names.js";
import { UsageError } from "../util/usage.js";

const UNITS: Record<string, { unit: FloorUnit | "%"; factor: number }> = {
  "%": { unit: "%", factor: 1 },
  b: { unit: "bytes", factor: 1 },
  kib: { unit: "bytes", factor: 1024 },
  mib: { unit: "bytes", factor: 1024 * 1024 },
  ms: { unit: "ms", factor: 1 },
};

const FORMS = "sizes such as 2%,1MiB,1ms or METRIC=SIZE such as probeMs=0.5ms (units: %, B, KiB, MiB, ms)";

/** The metrics --min-effect may name: those with a practical floor. */
const FLOORED = JUDGED_METRICS.filter((m) => metricOf(m).floor !== null);

function bad(text: string, why = ""): UsageError {
  return new UsageError(`--min-effect must be a comma-separated list of ${FORMS}${why}; got ${JSON.stringify(text)}`);
}

/** One item's metric (null: every metric), unit and value. */
function item(text: string, raw: string): { metric: JudgedMetric | null; unit: FloorUnit | "%"; value: number } {
  const m = /^\s*(?:([A-Za-z0-9]+)\s*=\s*)?(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(%|B|KiB|MiB|ms)\s*$/i.exec(raw);
  const unit = m ? UNITS[(m[3] as string).toLowerCase()] : undefined;
  if (!m || !unit) throw bad(text);
  const name = m[1];
  if (name === undefined) return { metric: null, unit: unit.unit, value: Number(m[2]) * unit.factor };
  if (!(FLOORED as readonly string[]).includes(name)) throw bad(text, ` (metrics with a floor: ${FLOORED.join(", ")})`);
  const metric = name as JudgedMetric;
  if (unit.unit !== "%" && unit.unit !== floorUnitOf(metric)) {
    throw bad(
      text,
      ` (${metric} is in ${floorUnitOf(metric)}: give it % or ${floorUnitOf(metric) === "ms" ? "ms" : "B, KiB, MiB"})`,
    );
  }
  return { metric, unit: unit.unit, value: Number(m[2]) * unit.factor };
}

/** The parts given; nothing given: each metric's own floor. */
export function parseMinEffect(raw: unknown): MinEffect {
  if (raw === undefined) return {};
  const text = Array.isArray(raw) ? raw.join(",") : String(raw);
  const out: MinEffect = {};
  for (const part of text.split(",")) {
    const { metric, unit, value } = item(text, part);
    if (metric === null) {
      out[unit === "%" ? "percent" : unit] = value;
      continue;
    }
    const own = { ...out.metrics?.[metric], [unit === "%" ? "percent" : "absolute"]: value };
    out.metrics = { ...out.metrics, [metric]: own };
  }
  return out;
}
