// `catchup-bench report --merge SUMMARY...`: one report from the per-runner summaries of one
// distributed k6 run. Prints the Markdown; with --out also writes merged.md and merged.json there.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../exit-codes.js";
import { REPORT_OPTIONS } from "../options/report.js";
import { parseOption } from "../options/spec.js";
import { escapeText } from "../report/failures.js";
import { MergeInputError, mergeSummaries, renderMergedMarkdown } from "../report/merge.js";
import { readRunnerSummaries } from "../report/merge-input.js";
import { UsageError, writableDirFlag } from "../usage.js";

export interface MergeArgs {
  run?: string;
  merge?: unknown;
  out?: unknown;
  ceiling?: unknown;
  guard?: unknown;
}

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** The command's work: returns the exit code it would set. */
export function runMergeReport(args: MergeArgs, out: (text: string) => void): number {
  if (args.run !== undefined) {
    throw new UsageError(`--merge takes the summaries in place of a run directory (got both --merge and ${args.run})`);
  }
  if (args.ceiling !== undefined || args.guard !== undefined) {
    throw new UsageError("--ceiling/--guard judge a bench run; a merged k6 run has no paired ratios to judge");
  }
  const paths = parseOption("merge", REPORT_OPTIONS.merge, args.merge) as string[];
  const outDir =
    args.out === undefined ? null : writableDirFlag("out", parseOption("out", REPORT_OPTIONS.out, args.out) as string);
  let markdown: string;
  let merged: ReturnType<typeof mergeSummaries>;
  try {
    merged = mergeSummaries(readRunnerSummaries(paths));
    markdown = renderMergedMarkdown(merged);
  } catch (e) {
    if (e instanceof MergeInputError) throw new UsageError(e.message);
    throw e;
  }
  out(markdown);
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    writeAtomically(join(outDir, "merged.json"), `${JSON.stringify(merged, null, 2)}\n`);
    writeAtomically(join(outDir, "merged.md"), markdown);
    out(
      `\nmerged.md:   ${escapeText(join(outDir, "merged.md"))}\nmerged.json: ${escapeText(join(outDir, "merged.json"))}\n`,
    );
  }
  return EXIT.ok;
}
