// The search of a bisection, over the first-parent commits of (good, bad]: which comparisons to make
// and what they mean. No processes or files: `compare` measures (or reads a saved step). Its first
// step compares good with bad; SAME there ends it (nothing changed), DIFFERENT names the cells that
// changed and every later step is decided on those. Each range is halved by comparing its lower end
// with its middle: DIFFERENT keeps the lower half, SAME the upper. When a lower half differs by less
// than the whole range did (their intervals apart), the upper half may hold a second change: it is
// compared end to end and, if DIFFERENT, bisected too. UNKNOWN at the cap ends a range undecided.
import type { Outcome } from "../results/outcome.js";
import type { CellOutcome, ComparisonOutcome } from "../store/bisections.js";
import type { Focus } from "../verdicts/pair-outcome.js";

export type Compare = (base: string, head: string, focus: readonly Focus[] | null) => Promise<ComparisonOutcome>;

export interface Culprit {
  commit: string;
  /** The commit it was measured against in the step that named it (its parent, or an earlier commit the search found the same). */
  against: string;
  /** The changed cells of that step: ratio and interval per metric. */
  cells: CellOutcome[];
}

export interface SearchResult {
  /** DIFFERENT: culprits named; SAME: nothing changed between good and bad; UNKNOWN: a range stayed undecided. */
  outcome: Outcome;
  culprits: Culprit[];
  /** Ranges the search could not narrow below (undecided at the cap), as [last same, first different]. */
  undecided: [string, string][];
}

interface Range {
  lo: number;
  hi: number;
  /** The step showing at(lo) and at(hi) differ, or null when that is still to be measured. */
  whole: ComparisonOutcome | null;
}

/** Whether the two steps' intervals are apart in some cell both decided on. */
function apart(part: ComparisonOutcome, whole: ComparisonOutcome): boolean {
  return part.cells.some((c) => {
    const w = whole.cells.find((x) => x.cell === c.cell && x.metric === c.metric);
    if (!w || c.low === null || c.high === null || w.low === null || w.high === null) return false;
    return c.high < w.low || c.low > w.high;
  });
}

const focusOf = (step: ComparisonOutcome): Focus[] =>
  step.cells.filter((c) => c.outcome === "DIFFERENT").map((c) => ({ cell: c.cell, metric: c.metric }));

/** Bisects `commits` (oldest first, the last one bad) after `good`. */
export async function bisectSearch(
  good: string,
  commits: readonly string[],
  compare: Compare,
  focus: readonly Focus[] | null = null,
): Promise<SearchResult> {
  const at = (i: number) => (i < 0 ? good : (commits[i] as string));
  const bad = commits.length - 1;
  const first = await compare(good, at(bad), focus);
  if (first.outcome !== "DIFFERENT") return { outcome: first.outcome, culprits: [], undecided: [] };
  const changed = focusOf(first);
  const culprits: Culprit[] = [];
  const undecided: [string, string][] = [];
  const queue: Range[] = [{ lo: -1, hi: bad, whole: first }];
  for (let range = queue.shift(); range; range = queue.shift()) {
    let { lo, hi, whole } = range;
    whole ??= await compare(at(lo), at(hi), changed);
    if (whole.outcome !== "DIFFERENT") {
      if (whole.outcome === "UNKNOWN") undecided.push([at(lo), at(hi)]);
      continue;
    }
    let named = whole;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const step = await compare(at(lo), at(mid), changed);
      if (step.outcome === "UNKNOWN") break;
      if (step.outcome === "SAME") {
        lo = mid;
        continue;
      }
      if (apart(step, named)) queue.push({ lo: mid, hi, whole: null });
      named = step;
      hi = mid;
    }
    if (hi - lo > 1) undecided.push([at(lo), at(hi)]);
    else
      culprits.push({
        commit: at(hi),
        against: named.base,
        cells: named.cells.filter((c) => c.outcome === "DIFFERENT"),
      });
  }
  const order = new Map(commits.map((c, i) => [c, i]));
  culprits.sort((a, b) => (order.get(a.commit) ?? 0) - (order.get(b.commit) ?? 0));
  return { outcome: culprits.length > 0 ? "DIFFERENT" : "UNKNOWN", culprits, undecided };
}
