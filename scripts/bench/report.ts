// The run's report (scripts/report: report.md and report.html) and, with --ceiling, the regression
// guard's decision, also kept as guard.txt in the run directory (the same as `report --ceiling` writes).
import { type JudgedReports, writeJudgedReports } from "../report/judged.js";
import type { MinEffect } from "../report/practical.js";
import type { GuardSettings } from "../report/verdicts.js";
import type { Results } from "../results.js";

export type RunReport = JudgedReports;

export async function renderReport(
  runDir: string,
  results: Results,
  guard: GuardSettings | null,
  minEffect: MinEffect,
): Promise<RunReport> {
  return writeJudgedReports(runDir, results, guard, minEffect);
}
