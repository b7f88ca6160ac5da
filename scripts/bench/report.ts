// The run's report: the full renderer (scripts/report, issue 6) when it is built, else the plain
// tables of plain-report.ts; plus the regression guard when --ceiling was given.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Results } from "../results.js";
import type { BenchConfig } from "./config.js";
import { renderPlainReport } from "./plain-report.js";
import { writeFileAtomic } from "./results-file.js";

interface ReportModules {
  writeReports?: (runDir: string) => Promise<{ markdown: string }>;
  judge?: (results: Results, options: { ceiling: number; metrics: string[] }) => { pass: boolean; lines: string[] };
}

async function optionalImport(rel: string): Promise<Record<string, unknown> | null> {
  try {
    return (await import(new URL(rel, import.meta.url).href)) as Record<string, unknown>;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") return null;
    throw e;
  }
}

async function reportModules(): Promise<ReportModules> {
  const write = await optionalImport("../report/write.js");
  const guard = await optionalImport("../report/guard.js");
  return {
    writeReports: write?.writeReports as ReportModules["writeReports"],
    judge: guard?.judge as ReportModules["judge"],
  };
}

export async function renderReport(
  runDir: string,
  results: Results,
  config: Pick<BenchConfig, "ceiling" | "guard">,
): Promise<{ markdown: string; guard: { pass: boolean; lines: string[] } | null }> {
  const modules = await reportModules();
  let markdown: string;
  if (modules.writeReports) {
    markdown = (await modules.writeReports(runDir)).markdown;
  } else {
    markdown = renderPlainReport(results);
    writeFileAtomic(join(runDir, "report.md"), markdown);
  }
  let guard: { pass: boolean; lines: string[] } | null = null;
  if (config.ceiling !== null) {
    if (!modules.judge) throw new Error("--ceiling needs the report module (scripts/report/guard.js), which is not built");
    guard = modules.judge(results, { ceiling: config.ceiling, metrics: config.guard });
    writeFileSync(join(runDir, "guard.txt"), `${guard.lines.join("\n")}\n`);
  }
  return { markdown, guard };
}
