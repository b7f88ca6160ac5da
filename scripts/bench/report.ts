import { type JudgedReports, writeJudgedReports } from "../report/judged.js";
import type { Results } from "../results/schema.js";
import type { GuardConfig } from "../verdicts/cells.js";
import type { MinEffect } from "../verdicts/practical.js";

export type RunReport = JudgedReports;

export async function renderReport(
  runDir: string,
  results: Results,
  guard: GuardConfig | null,
  minEffect: MinEffect,
): Promise<RunReport> {
  return writeJudgedReports(runDir, results, guard, minEffect);
}
