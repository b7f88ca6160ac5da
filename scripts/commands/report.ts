// `catchup-bench report <run>`: re-render report.md and report.html from a run's results.json and
// samples (never re-measures), print the Markdown, and judge the regression guard when --ceiling is given.
// The renderers are loaded once the flags are read: a usage error never waits for them.
import type { CommandModule } from "yargs";
import { DiskFullError } from "../../common/disk-full.js";
import { type GuardRaw, guardFromFlags } from "../options/guard.js";
import { parseMinEffect } from "../options/min-effect.js";
import { REPORT_COMMAND } from "../options/report.js";
import { applyOptions } from "../options/yargs.js";
import { minEffectFromConfig } from "../results/metric-floor.js";
import { escapeText } from "../util/escape.js";
import { EXIT } from "../util/exit-codes.js";
import { UsageError } from "../util/usage.js";
import type { GuardConfig } from "../verdicts/cells.js";
import { runMatrices } from "../verdicts/guard-verdict.js";
import { emitReport, type SummaryFlags } from "./summary-out.js";

export interface ReportArgs extends GuardRaw, SummaryFlags {
  run?: string;
  merge?: unknown;
  out?: unknown;
  samples?: unknown;
  "clock-offset-ms"?: unknown;
}

/**
 * Validates the guard flags: null when nothing is to be judged. Without --guard, the metrics are the
 * defaults for `matrices` (the run's parts, as bench chose them).
 */
export function guardOptions(
  args: Omit<ReportArgs, "run" | "merge" | "out" | "json" | "summary-md" | "samples" | "clock-offset-ms">,
  matrices?: Parameters<typeof guardFromFlags>[1],
): GuardConfig | null {
  return guardFromFlags(args, matrices).guard;
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
export async function runReport(
  args: ReportArgs,
  out: (text: string) => void,
  err: (text: string) => void = (t) => process.stderr.write(t),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (args.merge !== undefined) return (await import("./report-merge.js")).runMergeReport(args, out);
  if (args.run === undefined) throw new UsageError("report needs a run directory, or --merge SUMMARY...");
  if (args.samples !== undefined || args["clock-offset-ms"] !== undefined) {
    throw new UsageError("--samples and --clock-offset-ms go with --merge (a distributed k6 run's summaries)");
  }
  // Refused rather than ignored: the reports of a run always go into its own folder.
  if (args.out !== undefined) {
    throw new UsageError(
      `--out is for --merge; \`report RUN\` writes report.md and report.html into RUN (${args.run}) itself`,
    );
  }
  const flagged = guardOptions(args);
  const { ReportInputError, RunInProgressError, readResults, writeJudgedReports } = await import("../report/write.js");
  let written: Awaited<ReturnType<typeof writeJudgedReports>>;
  try {
    const results = readResults(args.run);
    // The same cells and default figures as the bench that made the run: re-rendering gives its verdict.
    const guard = flagged ? (guardOptions(args, runMatrices(results)) ?? flagged) : null;
    const minEffect =
      args["min-effect"] === undefined
        ? minEffectFromConfig(results.run.config ?? {})
        : parseMinEffect(args["min-effect"]);
    written = await writeJudgedReports(args.run, results, guard, minEffect);
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
  const notes = [
    `report.md:   ${escapeText(written.mdPath)}`,
    `report.html: ${escapeText(written.htmlPath)}`,
    ...(written.guard?.lines ?? []),
  ];
  emitReport(written, args, env, out, err, notes);
  return written.guard ? written.guard.exitCode : EXIT.ok;
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: REPORT_COMMAND.command,
  describe: REPORT_COMMAND.describe,
  // --merge takes several paths after one flag.
  builder: (y) => applyOptions(y, REPORT_COMMAND).array("merge").array("samples") as never,
  handler: async (argv) => {
    quietOnClosedStdout();
    const code = await runReport(argv, (t) => process.stdout.write(t));
    if (code !== 0) process.exitCode = code;
  },
};
