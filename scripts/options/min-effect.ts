// --min-effect: the practical floor, e.g. "1%,1MiB,1ms" (any of the three, in any order; the others
// keep their defaults). Pure: one clear line naming the flag and the allowed forms for bad input.

import { UsageError } from "../util/usage.js";
import { DEFAULT_MIN_EFFECT, type MinEffect } from "../verdicts/practical.js";

const UNITS: Record<string, { key: keyof MinEffect; factor: number }> = {
  "%": { key: "percent", factor: 1 },
  b: { key: "bytes", factor: 1 },
  kib: { key: "bytes", factor: 1024 },
  mib: { key: "bytes", factor: 1024 * 1024 },
  ms: { key: "ms", factor: 1 },
};

export function parseMinEffect(raw: unknown): MinEffect {
  if (raw === undefined) return { ...DEFAULT_MIN_EFFECT };
  const text = Array.isArray(raw) ? raw.join(",") : String(raw);
  const out = { ...DEFAULT_MIN_EFFECT };
  for (const item of text.split(",")) {
    const m = /^\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(%|B|KiB|MiB|ms)\s*$/i.exec(item);
    const unit = m ? UNITS[(m[2] as string).toLowerCase()] : undefined;
    if (!m || !unit) {
      throw new UsageError(
        `--min-effect must be a comma-separated list of sizes such as 1%,1MiB,1ms (units: %, B, KiB, MiB, ms; got ${JSON.stringify(text)})`,
      );
    }
    out[unit.key] = Number(m[1]) * unit.factor;
  }
  return out;
}
