// The guard never decides on too few pairs: a results.json with 1, 3 and 8 pairs per cell walked
// through it. Below --guard-min-pairs (default 8) no cell gets PASS or FAIL: "too few pairs", exit 3,
// and the summary says how many more rounds would let it decide.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { GUARD_MIN_PAIRS } from "../../scripts/verdicts/cells.js";
import { judge } from "../../scripts/verdicts/guard-verdict.js";
import { syntheticResults } from "./synthetic-run.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function results(pairs: number, swapped = false) {
  const d = mkdtempSync(join(tmpdir(), "catchup-minpairs-"));
  dirs.push(d);
  return syntheticResults(d, { trials: pairs, memoryTrials: pairs, swapped });
}
const GUARD = { ceiling: 1.03, metrics: ["completionMs", "peakHeapBytes"] };

describe("the guard's minimum number of pairs", () => {
  it("is 8 by default, where the interval's coverage is within 2 points of 95%", () => {
    expect(GUARD_MIN_PAIRS).toBe(8);
  });

  for (const pairs of [1, 3]) {
    it(`gives no PASS or FAIL at ${pairs} pair${pairs === 1 ? "" : "s"} per cell, even for a clear regression`, () => {
      for (const swapped of [false, true]) {
        const d = judge(results(pairs, swapped), GUARD);
        expect(d.exitCode).toBe(EXIT.noResult);
        expect(d.failed).toEqual([]);
        const cells = d.lines.slice(0, -1);
        expect(cells).toHaveLength(12);
        for (const line of cells) {
          expect(line).not.toMatch(/: (PASS|FAIL)/);
          expect(line).toContain(
            `TOO FEW PAIRS (no verdict: ${pairs} pair${pairs === 1 ? "" : "s"}, the guard needs 8: ${8 - pairs} more round`,
          );
        }
        expect(d.lines.at(-1)).toMatch(
          new RegExp(
            `^guard: NO VERDICT for .*; too few pairs: ${8 - pairs} more rounds? needed \\(--trials 8 --memory-trials 8, or --auto-sample\\)$`,
          ),
        );
      }
    });
  }

  it("decides at 8 pairs: PASS for the faster candidate, FAIL when the roles are swapped", () => {
    const pass = judge(results(8), GUARD);
    expect(pass.exitCode).toBe(EXIT.ok);
    expect(pass.lines.at(-1)).toBe("guard: PASS (12 guarded cells, median <= 1.03 in each)");
    const fail = judge(results(8, true), GUARD);
    expect(fail.exitCode).toBe(EXIT.regression);
    expect(fail.lines.filter((l) => l.endsWith(": FAIL")).length).toBeGreaterThanOrEqual(6);
  });

  it("takes a lower minimum when asked (--guard-min-pairs 3)", () => {
    expect(judge(results(3), { ...GUARD, minPairs: 3 }).exitCode).toBe(EXIT.ok);
  });
});
