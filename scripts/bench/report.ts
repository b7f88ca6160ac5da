// The run's report (scripts/report: report.md and report.html) and, with --ceiling, the regression
// guard's decision, also kept as guard.txt in the run directory.
import { join } from "node:path";
import { writeFileAtomic } from "../../fixtures/atomic-file.js";
import { type GuardDecision, judge } from "../verdicts/guard.js";
import { writeReports } from "../report/write.js";
import type { Results } from "../results/schema.js";
import type { BenchConfig } from "./config.js";

export interface RunReport {
  markdown: string;
  guard: GuardDecision | null;
}

export async function renderReport(
  runDir: string,
  results: Results,
  config: Pick<BenchConfig, "ceiling" | "guard" | "guardConfidence" | "allowMissing">,
): Promise<RunReport> {
  const { markdown } = await writeReports(runDir);
  if (config.ceiling === null) return { markdown, guard: null };
  const guard = judge(results, {
    ceiling: config.ceiling,
    metrics: config.guard,
    confidence: config.guardConfidence,
    allowMissing: config.allowMissing,
  });
  writeFileAtomic(join(runDir, "guard.txt"), `${guard.lines.join("\n")}\n`);
  return { markdown, guard };
}
