// End to end, per-cell guard: a foreign target that is 150 ms slower on resume-many ONLY (the other
// three cases unchanged) FAILs the guard naming that case (exit 1), while the completion ratio pooled
// over all cases stays near 1.0, which a pooled guard would have passed. The baseline's A/A copy
// runs in the same rounds, so every case also gets a noise band.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { readFixtureMeta } from "../../fixtures/meta.js";
import type { Results } from "../../scripts/results/schema.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { benchResults } from "../bench/bench-child.js";

const TARGET = fileURLToPath(new URL("./targets/slow-case.mjs", import.meta.url));
const TRIALS = 8;

let dir: string;
let out: string;
let code: number | null;
let printed: string;
let results: Results;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catchup-one-case-"));
  const fixture = join(dir, "small.sqlite");
  generateFixture({
    projects: 40,
    scriptBytesMin: 64,
    scriptBytesMax: 64,
    scriptsPerProject: 1,
    events: 40,
    seed: 1,
    out: fixture,
  });
  const { cursorSequence } = readFixtureMeta(fixture);
  out = join(dir, "run");
  ({ code, printed, results } = await benchResults(
    [
      "--no-memory",
      "--fixture",
      fixture,
      "--ack-delay-ms",
      "0",
      "--trials",
      String(TRIALS),
      "--ceiling",
      "1.2",
      "--guard-min-pairs",
      String(TRIALS),
      "--guard",
      "completionMs",
      "--target",
      `base=node ${TARGET} --port {port}`,
      "--target",
      `slow=node ${TARGET} --port {port} --slow-after ${cursorSequence} --extra-ms 150`,
    ],
    out,
    240_000,
  ));
}, 260_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a candidate that regresses one latency case only", () => {
  it("fails the guard naming that case, and exits 1", () => {
    expect(code, printed).toBe(EXIT.regression);
    expect(printed).toMatch(
      /^completionMs resume-many: median paired ratio [23]\.\d{3} .*median > ceiling 1\.2: FAIL$/m,
    );
    expect(printed).toContain("guard: FAIL (median above 1.2) in 1 cell: completionMs resume-many");
    for (const c of ["snapshot", "resume-none", "resume-one"]) {
      expect(printed).toMatch(new RegExp(`^completionMs ${c}: .*: PASS`, "m"));
    }
  });

  it("keeps the pooled ratio near 1.0: only the per-cell verdict sees the regression", () => {
    const pooled =
      /Pooled over all cells \(a summary, never a verdict\): median of (\d+) paired ratios slow\/base ([\d.]+)/.exec(
        readFileSync(join(out, "report.md"), "utf8"),
      );
    expect(pooled?.[1]).toBe(String(4 * TRIALS));
    expect(Number(pooled?.[2])).toBeGreaterThan(0.9);
    expect(Number(pooled?.[2])).toBeLessThan(1.2); // below the ceiling: a pooled guard would pass
  });

  it("writes per-cell verdicts with A/A bands from the interleaved baseline copy", () => {
    const completion = (results.verdicts ?? []).filter((v) => v.metric === "completionMs");
    expect(completion.map((v) => [v.cell, v.pairs, v.plannedPairs])).toEqual([
      ["snapshot", TRIALS, TRIALS],
      ["resume-none", TRIALS, TRIALS],
      ["resume-one", TRIALS, TRIALS],
      ["resume-many", TRIALS, TRIALS],
    ]);
    expect(completion.find((v) => v.cell === "resume-many")?.verdict).toBe("fail");
    for (const v of completion.filter((x) => x.cell !== "resume-many")) expect(["pass", "noise"]).toContain(v.verdict);
    for (const v of completion) {
      expect(v.aaLow, v.cell).toBeLessThan(1);
      expect(v.aaHigh, v.cell).toBeGreaterThan(1);
    }
    // The A/A copy ran in the same rounds: one A2 row per case and round, none after the last round.
    expect(results.aa?.latency).toHaveLength(4 * TRIALS);
    expect(new Set(results.aa?.latency.map((r) => r.variant))).toEqual(new Set(["A2"]));
  });
});
