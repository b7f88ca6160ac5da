// The run's report (scripts/report: report.md and report.html) and, with --ceiling, the regression
// guard's decision, also kept as guard.txt in the run directory.
import { join } from "node:path";
import { writeFileAtomic } from "../../fixtures/atomic-file.js";
import { writeReports } from "../report/write.js";
import type { Results } from "../results/schema.js";
import type { GuardConfig } from "../verdicts/cells.js";
import { type GuardDecision, judge } from "../verdicts/guard.js";

export interface RunReport {
  markdown: string;
  guard: GuardDecision | null;
}

export async function renderReport(
  runDir: string,
  results: Results,
  guardConfig: GuardConfig | null,
): Promise<RunReport> {
  const { markdown } = await writeReports(runDir);
  if (guardConfig === null) return { markdown, guard: null };
  const guard = judge(results, guardConfig);
  writeFileAtomic(join(runDir, "guard.txt"), `${guard.lines.join("\n")}\n`);
  return { markdown, guard };
}
