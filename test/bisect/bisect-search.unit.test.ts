// The bisection's search (bisect-search.ts) over synthetic commits whose outcomes are known: the
// culprit found wherever it lies in 8 commits within 4 steps, two changes both named, a range with
// no change SAME after one step, a comparison undecided at the cap left undecided rather than blamed.
import { describe, expect, it } from "vitest";
import { bisectSearch, type Compare } from "../../scripts/history/bisect-search.js";
import type { Outcome } from "../../scripts/results/outcome.js";

const GOOD = "c0";
const COMMITS = ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"];

/** A server whose level is `levels[i]` at commit i (c0 = index 0); equal levels are SAME. */
function server(levels: readonly number[], unknown: ReadonlySet<string> = new Set()) {
  const steps: [string, string][] = [];
  const level = (sha: string) => levels[Number(sha.slice(1))] as number;
  const compare: Compare = async (base, head) => {
    steps.push([base, head]);
    const ratio = level(head) / level(base);
    const outcome: Outcome = unknown.has(`${base}|${head}`) ? "UNKNOWN" : ratio === 1 ? "SAME" : "DIFFERENT";
    const cell = {
      cell: "resume-many",
      metric: "completionMs",
      outcome,
      ratio,
      low: ratio * 0.98,
      high: ratio * 1.02,
      pairs: 8,
    };
    return { base, head, outcome, pairs: 8, runId: steps.length, cells: [cell] };
  };
  return { compare, steps };
}

describe("bisectSearch", () => {
  it("finds a single change at any of 8 commits in at most 4 steps", async () => {
    for (let k = 1; k <= 8; k++) {
      const levels = Array.from({ length: 9 }, (_, i) => (i >= k ? 2 : 1));
      const s = server(levels);
      const found = await bisectSearch(GOOD, COMMITS, s.compare);
      expect(found.outcome).toBe("DIFFERENT");
      expect(found.culprits.map((c) => c.commit)).toEqual([`c${k}`]);
      expect(found.culprits[0]?.cells[0]?.ratio).toBe(2);
      expect(s.steps.length).toBeLessThanOrEqual(4);
    }
  });

  it("names both changes when both halves differ", async () => {
    const s = server([1, 1, 2, 2, 2, 2, 3, 3, 3]);
    const found = await bisectSearch(GOOD, COMMITS, s.compare);
    expect(found.culprits.map((c) => c.commit)).toEqual(["c2", "c6"]);
  });

  it("ends SAME after one step when nothing changed", async () => {
    const s = server([1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const found = await bisectSearch(GOOD, COMMITS, s.compare);
    expect(found).toEqual({ outcome: "SAME", culprits: [], undecided: [] });
    expect(s.steps).toEqual([["c0", "c8"]]);
  });

  it("leaves a range undecided at the cap rather than blaming a commit", async () => {
    const s = server([1, 1, 1, 1, 1, 2, 2, 2, 2], new Set(["c0|c4"]));
    const found = await bisectSearch(GOOD, COMMITS, s.compare);
    expect(found.outcome).toBe("UNKNOWN");
    expect(found.culprits).toEqual([]);
    expect(found.undecided).toEqual([["c0", "c8"]]);
  });
});
