// The run's report (scripts/report: report.md and report.html) and, with --ceiling, the regression
// guard's decision, also kept as guard.txt in the run directory (the same as `report --ceiling` writes).
import { type JudgedReports, writeJudgedReports } from "../report/judged.js";
import type { Results } from "../results.js";
import type { BenchConfig } from "./config.js";

export type RunReport = JudgedReports;

export async function renderReport(
  runDir: string,
  results: Results,
  config: Pick<BenchConfig, "ceiling" | "guard" | "guardConfidence" | "allowMissing" | "guardMinPairs" | "minEffect">,
): Promise<RunReport> {
  const guard =
    config.ceiling === null
      ? null
      : {
          ceiling: config.ceiling,
          metrics: config.guard,
          confidence: config.guardConfidence,
          allowMissing: config.allowMissing,
          minPairs: config.guardMinPairs,
        };
  return writeJudgedReports(runDir, results, guard, config.minEffect);
}
