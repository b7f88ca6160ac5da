// Sequential latency rounds: the same rule as the memory cells. A case whose completion and
// acknowledgement are DIFFERENT at the 8-pair look stops there; so does a noisy unchanged case, whose
// answer is out of reach by the cap; a noisy case with a change it may yet show gets interleaved rounds
// to the next looks and the cap; the budget ends the rounds; results.json says per case why it stopped.
import { describe, expect, it } from "vitest";
import { createLatencyRounds } from "../../scripts/bench/rounds/latency-rounds.js";
import { type LatencyTrial, latencyRound } from "../../scripts/bench/rounds/plan.js";
import { latencyCellNeeds } from "../../scripts/bench/rounds/sequential-rounds.js";
import type { LatencyCase, LatencyRow, Results } from "../../scripts/results/schema.js";

const VARIANTS = ["legacy", "batched", "A2"];
const CHANGED: LatencyCase = "resume-many";
const NOISY: LatencyCase = "snapshot";
/** Noisy like NOISY, but 8% slower: at 8 and 12 pairs UNKNOWN with a fair chance of DIFFERENT by 16. */
const SLOW: LatencyCase = "resume-one";

/** A deterministic wobble in [-1, 1] per trial and variant. */
const wobble = (trial: number, variant: string) => Math.sin(trial * 7.3 + variant.length * 1.9);

function row(t: LatencyTrial): LatencyRow {
  const noisy = t.case !== CHANGED;
  const change = t.case === CHANGED ? 1.3 : t.case === SLOW ? 1.08 : 1;
  const factor = t.variant === "batched" ? change : 1;
  const ms = 200 * factor * (1 + (noisy ? 0.08 : 0.005) * wobble(t.trial, t.variant));
  return {
    case: t.case,
    variant: t.variant,
    trial: t.trial,
    ok: true,
    completionMs: ms,
    acknowledgedMs: ms + 1,
  } as LatencyRow;
}

function results(seconds = 120): Results {
  return {
    schema: "catchup-bench/results@3",
    run: { config: { trials: 8, latencySequentialSeconds: seconds } },
    variants: [
      { name: "legacy", kind: "bundled", command: "", role: "baseline" },
      { name: "batched", kind: "bundled", command: "", role: "candidate" },
    ],
    latency: [],
    memory: [],
    aa: { latency: [], memory: [] },
  } as unknown as Results;
}

function add(r: Results, trials: LatencyTrial[]): void {
  for (const t of trials) (t.variant === "A2" ? (r.aa as NonNullable<Results["aa"]>).latency : r.latency).push(row(t));
}

describe("sequential latency rounds", () => {
  it("stops a changed case and a hopelessly noisy one at the 8-pair look, and gives one that may yet tell rounds to the cap", () => {
    const r = results();
    for (let round = 1; round <= 8; round++) add(r, latencyRound([CHANGED, NOISY, SLOW], VARIANTS, round));
    expect(latencyCellNeeds(r).get(CHANGED)).toBe("decided");
    expect(latencyCellNeeds(r).get(NOISY)).toBe("futile");
    expect(latencyCellNeeds(r).get(SLOW)).toBe("more");
    let clock = 0;
    const rounds = createLatencyRounds({
      budgetSeconds: 120,
      variants: VARIANTS,
      cases: [CHANGED, NOISY, SLOW],
      results: () => r,
      now: () => clock,
    });
    const asked: number[] = [];
    for (let next = rounds.more(); next.length > 0; next = rounds.more()) {
      expect(next.every((t) => t.case === SLOW)).toBe(true);
      asked.push(next[0]?.trial ?? 0);
      add(r, next);
      clock += 1000;
    }
    expect(asked).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(rounds.info().cells).toEqual([
      { cell: CHANGED, pairs: 8, why: "decided" },
      { cell: NOISY, pairs: 8, why: "futile" },
      { cell: SLOW, pairs: 16, why: "pairs" },
    ]);
  });

  it("stops adding rounds once the budget is spent, and says so per case", () => {
    const r = results();
    for (let round = 1; round <= 8; round++) add(r, latencyRound([SLOW], VARIANTS, round));
    let clock = 0;
    const rounds = createLatencyRounds({
      budgetSeconds: 2,
      variants: VARIANTS,
      cases: [SLOW],
      results: () => r,
      now: () => clock,
    });
    const first = rounds.more();
    expect(first.map((t) => t.trial)).toEqual([9, 9, 9]);
    add(r, first);
    clock += 2500;
    expect(rounds.more()).toEqual([]);
    expect(rounds.info().cells).toEqual([{ cell: SLOW, pairs: 9, why: "budget" }]);
  });
});
