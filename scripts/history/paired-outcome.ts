// A paired comparison decided with three outcomes (Pinpoint's): measure `head` against `base`; while
// the deciding cells say UNKNOWN, measure again with twice the pairs, up to a cap, then say UNKNOWN.
// Each try is a run of its own in the store (kind confirm or bisect).
import type { Outcome } from "../results/outcome.js";
import type { ComparisonOutcome } from "../store/bisections.js";
import type { RunKind } from "../store/tables.js";
import { cellOutcomes, combinedOutcome, type Focus, nextPairs } from "../verdicts/pair-outcome.js";
import { type MeasureContext, measurePair } from "./record.js";

export interface PairSettings {
  /** Pairs per cell of the first try. */
  pairs: number;
  /** The most pairs per cell a comparison doubles to before it says UNKNOWN. */
  maxPairs: number;
}

export interface Decided extends ComparisonOutcome {
  /** The signal that stopped a run of it, or null: a stopped comparison is not decided. */
  stoppedBy: string | null;
  /** A run that ended without a result (a crash, a failed build): the comparison is UNKNOWN. */
  broken: boolean;
  runIds: number[];
}

const short = (sha: string) => sha.slice(0, 12);

/** Measures `head` against `base` until the focus cells (all cells when null) decide, or the cap. */
export async function decidePair(
  ctx: MeasureContext,
  kind: RunKind,
  pair: { base: string; head: string; digest: string; focus: readonly Focus[] | null },
  settings: PairSettings,
  log: (line: string) => void,
): Promise<Decided> {
  const runIds: number[] = [];
  let pairs: number | null = settings.pairs;
  let last: Decided | null = null;
  while (pairs !== null) {
    const run = await measurePair(ctx, kind, pair.base, pair.head, pair.digest, pairs);
    runIds.push(run.runId);
    const stoppedBy =
      run.outcome.stopReason === "SIGINT" || run.outcome.stopReason === "SIGTERM" ? run.outcome.stopReason : null;
    const broken = run.outcome.interrupted || (run.outcome.results.targetCrashes?.length ?? 0) > 0;
    const cells = broken ? [] : cellOutcomes(run.outcome.results, pair.focus);
    const outcome: Outcome = broken ? "UNKNOWN" : combinedOutcome(cells.map((c) => c.outcome));
    last = { base: pair.base, head: pair.head, outcome, pairs, runId: run.runId, cells, stoppedBy, broken, runIds };
    // No deciding cell measured (a change point of a cell this run's flags leave out): more pairs cannot help.
    if (stoppedBy !== null || broken || outcome !== "UNKNOWN" || cells.length === 0) return last;
    const next = nextPairs(pairs, settings.maxPairs);
    log(
      next === null
        ? `history: ${short(pair.head)} against ${short(pair.base)}: UNKNOWN at ${pairs} pairs, the cap (--max-pairs ${settings.maxPairs})`
        : `history: ${short(pair.head)} against ${short(pair.base)}: UNKNOWN at ${pairs} pairs: measuring again with ${next}`,
    );
    pairs = next;
  }
  return last as Decided;
}
