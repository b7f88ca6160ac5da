// Sequential latency rounds: the same rule as the memory cells. A case whose completion and
// acknowledgement are DIFFERENT at the 8-pair look stops there; a noisy case gets interleaved rounds
// to the next looks and the cap; the budget ends the rounds; results.json says per case why it stopped.
import { describe, expect, it } from "vitest";
import { createLatencyRounds } from "../../scripts/bench/rounds/latency-rounds.js";
import { type LatencyTrial, latencyRound } from "../../scripts/bench/rounds/plan.js";
import { latencyCellNeeds } from "../../scripts/bench/rounds/sequential-rounds.js";
import type { LatencyCase, LatencyRow, Results } from "../../scripts/results/schema.js";

const VARIANTS = ["legacy", "batched", "A2"];
const CHANGED: LatencyCase = "resume-many";
const NOISY: LatencyCase = "snapshot";

/** A deterministic wobble in [-1, 1] per trial and variant. */
const wobble = (trial: number, variant: string) => Math.sin(trial * 7.3 + variant.length * 1.9);

function row(t: LatencyTrial): LatencyRow {
  const noisy = t.case === NOISY;
  const factor = t.variant === "batched" && !noisy ? 1.3 : 1;
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
  it("stops a changed case at the 8-pair look and gives a noisy one rounds to the cap", () => {
    const r = results();
    for (let round = 1; round <= 8; round++) add(r, latencyRound([CHANGED, NOISY], VARIANTS, round));
    expect(latencyCellNeeds(r).get(CHANGED)).toBe("decided");
    expect(latencyCellNeeds(r).get(NOISY)).toBe("more");
    let clock = 0;
    const rounds = createLatencyRounds({
      budgetSeconds: 120,
      variants: VARIANTS,
      cases: [CHANGED, NOISY],
      results: () => r,
      now: () => clock,
    });
    const asked: number[] = [];
    for (let next = rounds.more(); next.length > 0; next = rounds.more()) {
      expect(next.every((t) => t.case === NOISY)).toBe(true);
      asked.push(next[0]?.trial ?? 0);
      add(r, next);
      clock += 1000;
    }
    expect(asked).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(rounds.info().cells).toEqual([
      { cell: CHANGED, pairs: 8, why: "decided" },
      { cell: NOISY, pairs: 16, why: "pairs" },
    ]);
  });

  it("stops adding rounds once the budget is spent, and says so per case", () => {
    const r = results();
    for (let round = 1; round <= 8; round++) add(r, latencyRound([NOISY], VARIANTS, round));
    let clock = 0;
    const rounds = createLatencyRounds({
      budgetSeconds: 2,
      variants: VARIANTS,
      cases: [NOISY],
      results: () => r,
      now: () => clock,
    });
    const first = rounds.more();
    expect(first.map((t) => t.trial)).toEqual([9, 9, 9]);
    add(r, first);
    clock += 2500;
    expect(rounds.more()).toEqual([]);
    expect(rounds.info().cells).toEqual([{ cell: NOISY, pairs: 9, why: "budget" }]);
  });
});
