// `catchup-bench report <run>`: re-render report.md and report.html from a run's results.json and
// samples (never re-measures), print the Markdown, and judge the regression guard when --ceiling is given.
import type { CommandModule } from "yargs";
import { DiskFullError } from "../../fixtures/disk-full.js";
import { EXIT } from "../exit-codes.js";
import { guardFromFlags } from "../options/guard.js";
import { REPORT_COMMAND } from "../options/report.js";
import { applyOptions } from "../options/yargs.js";
import { type GuardOptions, judge, runMatrices } from "../report/guard.js";
import { ReportInputError, RunInProgressError, writeReports } from "../report/write.js";
import { UsageError } from "../usage.js";
import { runMergeReport } from "./report-merge.js";

export interface ReportArgs {
  run?: string;
  merge?: unknown;
  out?: unknown;
  ceiling?: unknown;
  guard?: unknown;
  "guard-confidence"?: unknown;
  "allow-missing"?: unknown;
}

/**
 * Validates the guard flags: null when nothing is to be judged. Without --guard, the metrics are the
 * defaults for `matrices` (the run's parts, as bench chose them).
 */
export function guardOptions(
  args: Omit<ReportArgs, "run" | "merge" | "out">,
  matrices?: Parameters<typeof guardFromFlags>[1],
): GuardOptions | null {
  const guard = guardFromFlags(args, matrices);
  return guard.ceiling === null
    ? null
    : {
        ceiling: guard.ceiling,
        metrics: guard.metrics,
        confidence: guard.confidence,
        allowMissing: guard.allowMissing,
      };
}

/**
 * `report RUN | head -1`: the reader closes the pipe early. That is not an error of ours: stop
 * writing and exit with the code we would have set, without a stack trace.
 */
export function quietOnClosedStdout(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    // The CLI's stream guard has said which error it was (scripts/output-streams.ts).
    process.exit(EXIT.noResult);
  });
}

/** The command's work, callable from a program: returns the exit code it would set. */
export async function runReport(args: ReportArgs, out: (text: string) => void): Promise<number> {
  if (args.merge !== undefined) return runMergeReport(args, out);
  if (args.run === undefined) throw new UsageError("report needs a run directory, or --merge SUMMARY...");
  const guard = guardOptions(args);
  let written: Awaited<ReturnType<typeof writeReports>>;
  try {
    written = await writeReports(args.run);
  } catch (e) {
    if (e instanceof ReportInputError) throw new UsageError(e.message);
    if (e instanceof RunInProgressError) {
      process.stderr.write(`catchup-bench: ${e.message}\n`);
      return EXIT.noResult;
    }
    if (e instanceof DiskFullError) {
      process.stderr.write(`catchup-bench: ${e.message}; the run's results are unchanged\n`);
      return EXIT.noResult;
    }
    throw e;
  }
  out(written.markdown);
  out(`\nreport.md:   ${written.mdPath}\nreport.html: ${written.htmlPath}\n`);
  if (!guard) return EXIT.ok;
  // The same cells and default figures as the bench that made the run: re-rendering gives its verdict.
  const decision = judge(written.results, guardOptions(args, runMatrices(written.results)) ?? guard);
  out(`\n${decision.lines.join("\n")}\n`);
  return decision.exitCode;
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: REPORT_COMMAND.command,
  describe: REPORT_COMMAND.describe,
  // --merge takes several paths after one flag.
  builder: (y) => applyOptions(y, REPORT_COMMAND).array("merge") as never,
  handler: async (argv) => {
    quietOnClosedStdout();
    const code = await runReport(argv, (t) => process.stdout.write(t));
    if (code !== 0) process.exitCode = code;
  },
};
