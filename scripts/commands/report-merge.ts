// `catchup-bench report --merge SUMMARY...`: one report from the per-runner summaries of one
// distributed k6 run. Prints the Markdown; with --out also writes merged.md and merged.json there.
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DiskFullError, isDiskFull } from "../../common/disk-full.js";
import { REPORT_OPTIONS } from "../options/report.js";
import { parseOption } from "../options/spec.js";
import { type MergedMemory, mergeMemory } from "../report/merge/agent-memory.js";
import { renderMemoryMarkdown } from "../report/merge/agent-memory-render.js";
import { agentSampleFiles, readAgentSamples, readRunnerSummaries } from "../report/merge/inputs.js";
import { renderMergedHtml } from "../report/merge/merged-html.js";
import { MergeInputError, mergeSummaries, renderMergedMarkdown } from "../report/merge/merged-report.js";
import { escapeText } from "../util/escape.js";
import { EXIT } from "../util/exit-codes.js";
import { UsageError, writableDirFlag } from "../util/usage.js";

export interface MergeArgs {
  run?: string;
  merge?: unknown;
  out?: unknown;
  ceiling?: unknown;
  guard?: unknown;
  samples?: unknown;
  "clock-offset-ms"?: unknown;
}

const MERGED_FILES = ["merged.json", "merged.md", "merged.html"] as const;

/**
 * Why `dir` cannot take merged.md and merged.json, or null: it is a bench run's folder (a merge never
 * writes among a run's results), or it already holds a merge (never overwritten silently), or an
 * entry of that name that is not a file.
 */
export function mergeOutProblem(dir: string): string | null {
  if (["results.json", "results.jsonl"].some((f) => existsSync(join(dir, f)))) {
    return `--out ${dir} is a bench run's folder (it holds its results); write the merge into a folder of its own`;
  }
  const taken = MERGED_FILES.filter((f) => {
    try {
      lstatSync(join(dir, f));
      return true;
    } catch {
      return false;
    }
  });
  if (taken.length > 0) {
    return `--out ${dir} already holds ${taken.join(" and ")}; a merge never overwrites another: pick a new directory or remove ${taken.length > 1 ? "them" : "it"}`;
  }
  return null;
}

/** Both files to temp files first, then renamed: on any failure nothing is left, neither file appears. */
function writeMerged(dir: string, texts: Record<(typeof MERGED_FILES)[number], string>): void {
  const temps: string[] = [];
  let writing = dir;
  try {
    mkdirSync(dir, { recursive: true });
    for (const f of MERGED_FILES) {
      const tmp = join(dir, `.${f}.${process.pid}.tmp`);
      temps.push(tmp);
      writing = join(dir, f);
      writeFileSync(tmp, texts[f], { flag: "wx" });
    }
    MERGED_FILES.forEach((f, i) => {
      renameSync(temps[i] as string, join(dir, f));
    });
  } catch (e) {
    for (const tmp of temps) rmSync(tmp, { force: true });
    // The inputs were read and merged: a full disk is no usage error (exit 3, as `report` says it).
    if (isDiskFull(e)) throw new DiskFullError(writing, "writing the merge");
    throw new UsageError(
      `--out ${dir}: cannot write the merge (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
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
  const outProblem = outDir ? mergeOutProblem(outDir) : null;
  if (outProblem) throw new UsageError(outProblem);
  const givenSamples =
    args.samples === undefined ? undefined : (parseOption("samples", REPORT_OPTIONS.samples, args.samples) as string[]);
  const offset =
    args["clock-offset-ms"] === undefined
      ? 0
      : (parseOption("clock-offset-ms", REPORT_OPTIONS["clock-offset-ms"], args["clock-offset-ms"]) as number);
  let markdown: string;
  let html: string;
  let merged: ReturnType<typeof mergeSummaries>;
  let memory: MergedMemory | null = null;
  try {
    const runners = readRunnerSummaries(paths);
    merged = mergeSummaries(runners);
    const agents = readAgentSamples(agentSampleFiles(givenSamples, paths));
    if (agents.length === 0 && args["clock-offset-ms"] !== undefined) {
      throw new UsageError("--clock-offset-ms aligns runner marks with agent samples: give --samples FILE too");
    }
    memory = agents.length > 0 ? mergeMemory(agents, runners, offset) : null;
    markdown = renderMergedMarkdown(merged, memory ? renderMemoryMarkdown(memory) : "");
    html = renderMergedHtml(
      merged,
      memory ? { model: memory, series: agents.map((a) => ({ rss: a.rss, heap: a.heapUsed, gaps: a.gaps })) } : null,
    );
  } catch (e) {
    if (e instanceof MergeInputError) throw new UsageError(e.message);
    throw e;
  }
  // Written before anything is printed: a refusal leaves no half-told story on stdout.
  if (outDir) {
    const json = `${JSON.stringify({ ...merged, memory }, null, 2)}\n`;
    try {
      writeMerged(outDir, { "merged.json": json, "merged.md": markdown, "merged.html": html });
    } catch (e) {
      if (!(e instanceof DiskFullError)) throw e;
      process.stderr.write(`catchup-bench: ${escapeText(e.message)}; nothing of the merge was written\n`);
      return EXIT.noResult;
    }
  }
  out(markdown);
  if (outDir) {
    out(
      `\nmerged.md:   ${escapeText(join(outDir, "merged.md"))}\nmerged.html: ${escapeText(join(outDir, "merged.html"))}\nmerged.json: ${escapeText(join(outDir, "merged.json"))}\n`,
    );
  }
  return EXIT.ok;
}
