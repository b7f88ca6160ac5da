// The regression guard's flags, shared by `bench` and `report`, and their one validation.

import type { MinEffect } from "../results/metric-floor.js";
import { UsageError } from "../util/usage.js";
import { GUARD_MIN_PAIRS, type GuardConfig } from "../verdicts/cells.js";
import { defaultGuard, GUARD_METRICS } from "../verdicts/guard-verdict.js";
import { parseMinEffect } from "./min-effect.js";
import { type OptionTable, parseOption } from "./spec.js";

/** --ceiling and --guard, listed under `group` in help. */
export const GUARD_OPTIONS = (group?: string) =>
  ({
    ceiling: {
      type: "number",
      min: 0.01,
      max: 100,
      describe: "fail (exit 1) when a guarded cell's median paired ratio candidate/baseline exceeds this, e.g. 1.03",
      ...(group ? { group } : {}),
    },
    guard: {
      type: "enum-list",
      choices: GUARD_METRICS,
      defaultText: defaultGuard().join(","),
      describe: "metrics the guard judges (needs --ceiling)",
      ...(group ? { group } : {}),
    },
    "guard-confidence": {
      type: "boolean",
      default: false,
      describe: "a guarded cell fails only when the lower bound of its 95% interval exceeds the ceiling",
      ...(group ? { group } : {}),
    },
    "allow-missing": {
      type: "boolean",
      default: false,
      describe: "judge a guarded cell on the pairs it has when some are missing (else: no verdict, exit 3)",
      ...(group ? { group } : {}),
    },
    "guard-min-pairs": {
      type: "int",
      min: 1,
      max: 1000,
      default: GUARD_MIN_PAIRS,
      describe:
        "PASS/FAIL needs this many pairs in a guarded cell (fewer: too few pairs, exit 3); the default is where the 95% interval's coverage is within 2 points of 95%",
      ...(group ? { group } : {}),
    },
    "min-effect": {
      type: "string",
      defaultText: "each metric's own",
      describe:
        "practical floor: a change smaller than a metric's floor (relative, and absolute in its unit) is 'no practical change' when its 95% interval lies inside it too; every metric has its own (Metrics, below); this replaces parts of them: 2%,1MiB,1ms for every metric, METRIC=SIZE (probeMs=0.5ms) for one",
      ...(group ? { group } : {}),
    },
  }) as const satisfies OptionTable;

/** The guard as the flags give it: null without --ceiling; the metrics also without it (the report marks them). */
export interface GuardFromFlags {
  guard: GuardConfig | null;
  /** Guarded metrics: --guard's, else the headline figure of each matrix that runs. */
  metrics: string[];
  /** --min-effect: the parts it replaces of every metric's practical floor, guarded or not. */
  minEffect: MinEffect;
}

/** Validates --ceiling and --guard (raw values as typed); the one place both commands check them. */
/** The guard's flags as typed (raw values), as both commands receive them. */
export interface GuardRaw {
  ceiling?: unknown;
  guard?: unknown;
  "guard-confidence"?: unknown;
  "allow-missing"?: unknown;
  "guard-min-pairs"?: unknown;
  "min-effect"?: unknown;
}

export function guardFromFlags(
  raw: GuardRaw,
  matrices: { latency: boolean; memory: boolean; leak?: boolean; storm?: boolean } = { latency: true, memory: true },
): GuardFromFlags {
  const spec = GUARD_OPTIONS();
  const metrics =
    raw.guard === undefined ? defaultGuard(matrices) : (parseOption("guard", spec.guard, raw.guard) as string[]);
  const switches = {
    confidence:
      raw["guard-confidence"] === undefined
        ? false
        : (parseOption("guard-confidence", spec["guard-confidence"], raw["guard-confidence"]) as boolean),
    allowMissing:
      raw["allow-missing"] === undefined
        ? false
        : (parseOption("allow-missing", spec["allow-missing"], raw["allow-missing"]) as boolean),
    minPairs:
      raw["guard-min-pairs"] === undefined
        ? GUARD_MIN_PAIRS
        : (parseOption("guard-min-pairs", spec["guard-min-pairs"], raw["guard-min-pairs"]) as number),
  };
  const minEffect = parseMinEffect(raw["min-effect"]);
  if (raw.ceiling === undefined) {
    if (raw.guard !== undefined) {
      throw new UsageError("--guard needs --ceiling (the ratio above which a guarded metric fails, e.g. 1.03)");
    }
    return { guard: null, metrics, minEffect };
  }
  const ceiling = parseOption("ceiling", spec.ceiling, raw.ceiling) as number;
  return { guard: { ceiling, metrics, ...switches }, metrics, minEffect };
}
