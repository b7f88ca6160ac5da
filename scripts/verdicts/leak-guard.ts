// The regression guard's rule for leak rows (pure): with `leakSlopeBytes` guarded, the run FAILs when
// the candidate's leak verdict is `leak` (the lower bound of its post-GC heap slope's 95% interval is
// above the threshold), whatever the baseline does: a server that grows on every reconnect is not
// shipped because the old one grew too. A ratio of slopes is not used: slopes sit near zero and
// change sign, so their ratio means nothing. A candidate without a verdict (too few cycles, a
// failed cycle before ten were measured, no leak rows) leaves the run without a verdict.

import type { LeakRow } from "../results/leak-record.js";
import { LEAK_METRIC } from "../results/metric-names.js";

export interface LeakGuard {
  lines: string[];
  failed: string[];
  undecided: string[];
}

function kib(bytes: number | null): string {
  return bytes === null ? "n/a" : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** One line per leak row of baseline and candidate; failed/undecided name the candidate's row. */
export function judgeLeak(rows: readonly LeakRow[] | undefined, baseline: string, candidate: string): LeakGuard {
  const name = `${LEAK_METRIC} ${candidate}`;
  const row = rows?.find((r) => r.variant === candidate);
  const base = rows?.find((r) => r.variant === baseline);
  if (!row) return { lines: [`${name}: no leak cycles in this run: MISSING`], failed: [], undecided: [name] };
  if (row.verdict === "missing") {
    return { lines: [`${name}: no slope (${row.error ?? "no cycles"}): MISSING`], failed: [], undecided: [name] };
  }
  const baseText = base
    ? `; baseline ${baseline} ${kib(base.slopeBytesPerCycle)}/cycle, ${base.verdict}`
    : "; no baseline leak row";
  const figure = `heap slope ${kib(row.slopeBytesPerCycle)}/cycle (95% CI ${kib(row.ciLow)} to ${kib(row.ciHigh)}, ${row.cycles} cycles)`;
  const rule = `lower bound ${row.verdict === "leak" ? ">" : "<="} threshold ${kib(row.thresholdBytesPerCycle)}/cycle`;
  const decision = row.verdict === "leak" ? "FAIL (leak)" : "PASS";
  return {
    lines: [`${name}: ${figure}; ${rule}${baseText}: ${decision}`],
    failed: row.verdict === "leak" ? [name] : [],
    undecided: [],
  };
}
