// `catchup-bench report <run>`: re-render report.md and report.html from a run's results.json and
// samples (never re-measures), print the Markdown, and judge the regression guard when --ceiling is given.
import type { CommandModule } from "yargs";
import { defaultGuard, GUARD_METRICS, judge } from "../report/guard.js";
import { ReportInputError, readResults, writeReports } from "../report/write.js";
import { enumFlag, listFlag, numberFlag, UsageError } from "../usage.js";

export const DEFAULT_GUARD = defaultGuard();

export interface ReportArgs {
  run: string;
  ceiling?: unknown;
  guard?: unknown;
}

/** Validates the guard flags: null when nothing is to be judged. */
export function guardOptions(args: {
  ceiling?: unknown;
  guard?: unknown;
}): { ceiling: number; metrics: string[] } | null {
  const metrics =
    args.guard === undefined
      ? DEFAULT_GUARD
      : listFlag("guard", args.guard).map((g) => enumFlag("guard", g, GUARD_METRICS));
  if (args.ceiling === undefined) {
    if (args.guard !== undefined) {
      throw new UsageError("--guard needs --ceiling (the ratio above which a guarded metric fails, e.g. 1.03)");
    }
    return null;
  }
  return { ceiling: numberFlag("ceiling", args.ceiling, 0.01, 100), metrics };
}

/** The command's work, callable from a program: returns the exit code it would set. */
export async function runReport(args: ReportArgs, out: (text: string) => void): Promise<number> {
  const guard = guardOptions(args);
  let written: Awaited<ReturnType<typeof writeReports>>;
  try {
    written = await writeReports(args.run);
  } catch (e) {
    if (e instanceof ReportInputError) throw new UsageError(e.message);
    throw e;
  }
  out(written.markdown);
  out(`\nreport.md:   ${written.mdPath}\nreport.html: ${written.htmlPath}\n`);
  if (!guard) return 0;
  const decision = judge(readResults(args.run), guard);
  out(`\n${decision.lines.join("\n")}\n`);
  return decision.pass ? 0 : 1;
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: "report <run>",
  describe: "Re-render report.md and report.html of a run directory (reports/<run>) from its results.json",
  builder: (y) =>
    y
      .positional("run", { type: "string", demandOption: true, describe: "run directory holding results.json" })
      .option("ceiling", {
        type: "string",
        describe: "regression guard: exit 1 when a guarded median paired ratio exceeds this (e.g. 1.03)",
      })
      .option("guard", {
        type: "string",
        describe: `metrics the guard judges (default ${DEFAULT_GUARD.join(",")}; allowed: ${GUARD_METRICS.join(", ")})`,
      }) as never,
  handler: async (argv) => {
    const code = await runReport(argv, (t) => process.stdout.write(t));
    if (code !== 0) process.exitCode = code;
  },
};
