// Reports and the guard's decision written together, the one way bench and `report --ceiling` both
// do it: the guard lines go into report.md (its guard section) and into guard.txt, byte for byte the
// same whichever command wrote them.
import { join } from "node:path";
import { writeFileAtomic } from "../../fixtures/atomic-file.js";
import type { Results } from "../results/schema.js";
import type { GuardConfig } from "../verdicts/cells.js";
import { type GuardDecision, judge } from "../verdicts/guard.js";
import type { MinEffect } from "../verdicts/practical.js";
import { readResults, writeReports } from "./write.js";

export type JudgedReports = Awaited<ReturnType<typeof writeReports>> & { guard: GuardDecision | null };

/** Renders report.md and report.html of a run, judged by `guard` when given (then also guard.txt). */
export async function writeJudgedReports(
  runDir: string,
  given: Results | undefined,
  guard: GuardConfig | null,
  minEffect?: MinEffect,
): Promise<JudgedReports> {
  const results = given ?? readResults(runDir);
  const decision = guard ? judge(results, guard) : null;
  const written = await writeReports(runDir, results, {
    ...(guard ? { guard } : {}),
    ...(minEffect ? { minEffect } : {}),
    guardLines: decision?.lines ?? null,
  });
  if (decision) writeFileAtomic(join(runDir, "guard.txt"), `${decision.lines.join("\n")}\n`);
  return { ...written, guard: decision };
}
