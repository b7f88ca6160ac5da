// `bisect --good P --bad S`: finds the commit of (P, S] that changed the server, each step a paired
// comparison with three outcomes (paired-outcome.ts), the search in bisect-search.ts. Every decided
// step is saved in the store as it is taken: a bisection of the same range, testbed and
// configuration killed midway resumes, the saved steps read back instead of measured again.
import { commitInfo, firstParentCommits, resolveCommit } from "../refs/commits.js";
import type { Outcome } from "../results/outcome.js";
import { type ComparisonOutcome, finishBisection, openBisection, saveStep } from "../store/bisections.js";
import { onStopSignals, type StopSignal } from "../util/stop-signals.js";
import { UsageError } from "../util/usage.js";
import type { Focus } from "../verdicts/pair-outcome.js";
import { bisectSearch, type Culprit } from "./bisect-search.js";
import { decidePair, type PairSettings } from "./paired-outcome.js";
import { type MeasureContext, requestedDigest, thisTestbed } from "./record.js";

export interface BisectStep extends ComparisonOutcome {
  /** Read back from the store (a resumed bisection), not measured now. */
  saved: boolean;
}

export interface BisectReport {
  bisectionId: number;
  good: string;
  bad: string;
  /** First-parent commits in (good, bad]. */
  commits: number;
  /** Null when a signal stopped it before it ended. */
  outcome: Outcome | null;
  culprits: (Culprit & { subject: string | null })[];
  undecided: [string, string][];
  steps: BisectStep[];
  stoppedBy: StopSignal | null;
}

class Stopped extends Error {
  constructor(readonly signal: StopSignal) {
    super(`stopped by ${signal}`);
  }
}

const short = (sha: string) => sha.slice(0, 12);

/** The first-parent commits of (good, bad], oldest first; a UsageError when good is not on bad's chain. */
function rangeOf(repo: string, good: string, bad: string): string[] {
  const commits = firstParentCommits(repo, `${good}..${bad}`);
  if (commits.length === 0 || commits.at(-1) !== bad || commitInfo(repo, commits[0] as string)?.parent !== good) {
    throw new UsageError(
      `bisect --good ${short(good)} --bad ${short(bad)}: the good commit must be an ancestor of the bad one on its first-parent chain`,
    );
  }
  return commits;
}

/** Bisects (good, bad]; `focus` limits the cells that decide (a change point's), else every cell. */
export async function runBisection(
  ctx: MeasureContext,
  o: {
    good: string;
    bad: string;
    focus: readonly Focus[] | null;
    settings: PairSettings;
    log: (line: string) => void;
    /** good against bad as already decided (a confirmation): the first step, not measured again. */
    first?: ComparisonOutcome;
  },
): Promise<BisectReport> {
  const good = resolveCommit(ctx.repo, o.good);
  const bad = resolveCommit(ctx.repo, o.bad);
  const commits = rangeOf(ctx.repo, good, bad);
  const digest = requestedDigest(ctx);
  const key = { good, bad, branch: ctx.branch, testbed: thisTestbed(), configDigest: digest };
  const bisection = await openBisection(ctx.store, key);
  if (o.first && o.first.base === good && o.first.head === bad && bisection.steps.length === 0) {
    await saveStep(ctx.store, bisection.id, 1, o.first);
    bisection.steps.push(o.first);
  }
  const saved = new Map(bisection.steps.map((s) => [`${s.base}|${s.head}`, s]));
  const steps: BisectStep[] = [];
  let stop: StopSignal | null = null;
  const off = onStopSignals((signal) => {
    stop ??= signal;
  });
  const compare = async (base: string, head: string, focus: readonly Focus[] | null) => {
    const known = saved.get(`${base}|${head}`);
    const n = steps.length + 1;
    if (known) {
      o.log(`bisect: step ${n}: ${short(head)} against ${short(base)}: ${known.outcome} (saved, ${known.pairs} pairs)`);
      steps.push({ ...known, saved: true });
      return known;
    }
    if (stop) throw new Stopped(stop);
    o.log(`bisect: step ${n}: ${short(head)} against ${short(base)}`);
    const d = await decidePair(ctx, "bisect", { base, head, digest, focus }, o.settings, o.log);
    if (d.stoppedBy === "SIGINT" || d.stoppedBy === "SIGTERM") throw new Stopped(d.stoppedBy);
    const step: ComparisonOutcome = { base, head, outcome: d.outcome, pairs: d.pairs, runId: d.runId, cells: d.cells };
    await saveStep(ctx.store, bisection.id, n, step);
    o.log(`bisect: step ${n}: ${d.outcome} at ${d.pairs} pairs`);
    steps.push({ ...step, saved: false });
    return step;
  };
  const report = { bisectionId: bisection.id, good, bad, commits: commits.length, steps };
  try {
    const found = await bisectSearch(good, commits, compare, o.focus);
    const culprits = found.culprits.map((c) => ({ ...c, subject: commitInfo(ctx.repo, c.commit)?.subject ?? null }));
    await finishBisection(ctx.store, bisection.id, found.outcome, { culprits, undecided: found.undecided });
    return { ...report, outcome: found.outcome, culprits, undecided: found.undecided, stoppedBy: null };
  } catch (e) {
    if (!(e instanceof Stopped)) throw e;
    return { ...report, outcome: null, culprits: [], undecided: [], stoppedBy: e.signal };
  } finally {
    off();
  }
}
