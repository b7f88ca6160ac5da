// The edge of the reports: read results.json and the sample files of a run directory, render
// report.md and report.html, and write both atomically (temp file, then rename). Never re-measures.

import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { tempPathFor, writeFileAtomic } from "../../common/atomic-file.js";
import { DiskFullError, isDiskFull } from "../../common/disk-full.js";
import { freeDeadRunReserve, resultsFromJsonl } from "../results/journal.js";
import { ownerAlive } from "../results/journal-owner.js";
import type { MinEffect } from "../results/metric-floor.js";
import { READABLE_RESULTS_SCHEMAS, type Results, type SampleLine, upgradeResults } from "../results/schema.js";
import type { GuardConfig } from "../verdicts/cells.js";
import { type GuardDecision, judge } from "../verdicts/guard-verdict.js";
import { reportCharts, type SampleSeries } from "./charts.js";
import { type HistoryContext, historySectionMarkdown } from "./history-section.js";
import { type HtmlAssets, renderHtml } from "./html.js";
import { renderMarkdown, summaryBlock } from "./markdown.js";
import { buildModel, type ModelOptions } from "./model.js";
import { resultsSchemaProblem } from "./results-check.js";
import { type SummaryJson, summaryJson } from "./summary-json.js";

/** A run directory that cannot be reported (missing or foreign results.json). */
export class ReportInputError extends Error {
  override readonly name = "ReportInputError";
}

/** A run whose bench is still running: it is reported once it has finished, and never written into meanwhile. */
export class RunInProgressError extends Error {
  override readonly name = "RunInProgressError";
}

/**
 * What is wrong with the shape of a parsed results.json (the fields the reports read), or null. A
 * file with the right schema tag but a missing `run` or a `latency` that is not an array is refused
 * with this one line rather than failing somewhere inside the renderer.
 */
export function resultsShapeProblem(value: unknown): string | null {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObj(value)) return "is not a JSON object";
  const run = value.run;
  if (!isObj(run)) return "has no `run` object";
  if (typeof run.startedAt !== "string") return "has no run.startedAt";
  if (!Array.isArray(run.loadAverage)) return "has no run.loadAverage array";
  if (typeof run.cores !== "number") return "has no run.cores number";
  if (run.config !== undefined && !isObj(run.config)) return "has a run.config that is not an object";
  if (!Array.isArray(value.variants)) return "has no `variants` array";
  for (const [i, v] of value.variants.entries()) {
    if (!isObj(v) || typeof v.name !== "string") return `has variants[${i}] without a name`;
  }
  const rows = (where: string, list: unknown, fields: string[]): string | null => {
    if (!Array.isArray(list)) return `has a \`${where}\` that is not an array`;
    for (const [i, r] of list.entries()) {
      if (!isObj(r) || typeof r.ok !== "boolean" || typeof r.variant !== "string" || typeof r.trial !== "number") {
        return `has ${where}[${i}] without ok, variant and trial`;
      }
      for (const f of fields) if (r[f] === undefined) return `has ${where}[${i}] without ${f}`;
    }
    return null;
  };
  const problem =
    rows("latency", value.latency, ["case"]) ?? rows("memory", value.memory, ["scriptBytes", "clients", "mode"]);
  if (problem) return problem;
  if (value.aa !== undefined) {
    if (!isObj(value.aa)) return "has an `aa` that is not an object";
    const aa = rows("aa.latency", value.aa.latency, ["case"]) ?? rows("aa.memory", value.aa.memory, ["scriptBytes"]);
    if (aa) return aa;
  }
  return resultsSchemaProblem(value);
}

/**
 * Reads a run's results: results.json, or, when only results.jsonl is there (a run stopped hard,
 * e.g. by a second Ctrl-C, before it wrote results.json), the rows in results.jsonl, marked as
 * interrupted. Throws ReportInputError with one line naming the file for anything unreadable.
 */
export function readResults(runDir: string): Results {
  const path = join(runDir, "results.json");
  const jsonl = join(runDir, "results.jsonl");
  let text: string;
  try {
    // A FIFO or a device would block or never end: only a regular file is read.
    if (existsSync(path) && !statSync(path).isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" });
    if (existsSync(path)) text = readFileSync(path, "utf8");
    else throw Object.assign(new Error("missing"), { code: existsSync(runDir) ? "ENOENT" : "no such directory" });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    if (code === "ENOENT" && isFile(jsonl)) return resultsOfJsonl(jsonl);
    const what = code === "ENOENT" || code === "no such directory" || code === "ENOTDIR" ? "no" : "cannot read";
    throw new ReportInputError(
      `${what} results.json in ${runDir} (${code === "EISDIR" ? "not a regular file" : code}); pass a run directory written by \`catchup-bench bench\``,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ReportInputError(`${path} is not valid JSON (${(e as Error).message})`);
  }
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  if (!(READABLE_RESULTS_SCHEMAS as readonly unknown[]).includes(schema)) {
    throw new ReportInputError(
      `${path} has schema ${JSON.stringify(schema)}; this version reads ${READABLE_RESULTS_SCHEMAS.join(" or ")}`,
    );
  }
  const problem = resultsShapeProblem(parsed);
  if (problem) throw new ReportInputError(`${path} ${problem} (a ${String(schema)} file written by bench has it)`);
  // An older version is read as the current one (the file itself is left as it is).
  return upgradeResults(parsed as Results & Record<string, unknown>) as Results;
}

function resultsOfJsonl(path: string): Results {
  let results: Results;
  try {
    results = resultsFromJsonl(path);
  } catch (e) {
    throw new ReportInputError(`${path}: cannot be read as results (${(e as Error).message})`);
  }
  const problem = resultsShapeProblem(results);
  if (problem) throw new ReportInputError(`${path} ${problem}`);
  const owner = journalOwner(path);
  if (ownerAlive(owner)) {
    const rows =
      results.latency.length +
      results.memory.length +
      (results.aa?.latency.length ?? 0) +
      (results.aa?.memory.length ?? 0);
    throw new RunInProgressError(
      `${dirname(path)} is in progress (bench pid ${owner?.pid} is still writing results.jsonl; ${rows} rows so far): nothing written; run report again once it has finished`,
    );
  }
  // Its writer is gone without finishing: the page it kept in reserve is no one's now.
  freeDeadRunReserve(dirname(path));
  // Rows after the last one written are lost; say the run did not finish.
  results.run.interrupted = true;
  results.run.stopReason ??= "results.json was never written (the run was stopped hard); rebuilt from results.jsonl";
  return results;
}

/** The owner named by a journal's run line (its first line), or null. */
function journalOwner(path: string): { pid: number } | null {
  try {
    const first = readFileSync(path, "utf8").split("\n", 1)[0] ?? "";
    const line = JSON.parse(first) as { kind?: string; owner?: { pid: number } };
    return line.kind === "run" ? (line.owner ?? null) : null;
  } catch {
    return null;
  }
}

/** Parses a samples JSONL file; skips blank and unparsable lines (a crash can truncate the last one). */
export function parseSamples(text: string): SampleLine[] {
  const out: SampleLine[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(line) as SampleLine;
      if (typeof v?.t === "number") out.push(v);
    } catch {
      // a partial line: ignore it
    }
  }
  return out;
}

/** True for a regular file (following links); false for missing, directories, FIFOs, devices. */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function readSamples(runDir: string, file: string | null): SampleSeries {
  if (!file) return null;
  try {
    const path = resolve(runDir, file);
    if (!isFile(path)) return null; // a FIFO or device named in a results.json must not hang the report
    return parseSamples(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

let cachedAssets: HtmlAssets | null = null;

/** uPlot's browser build and CSS, read from node_modules so the report needs no network. */
export function loadAssets(): HtmlAssets {
  if (!cachedAssets) {
    const require = createRequire(import.meta.url);
    const dir = join(require.resolve("uplot"), "..");
    cachedAssets = {
      uplotJs: readFileSync(join(dir, "uPlot.iife.min.js"), "utf8"),
      uplotCss: readFileSync(join(dir, "uPlot.min.css"), "utf8"),
    };
  }
  return cachedAssets;
}

/** report.md with its History section last (after the details: the run's own figures come first). */
function withHistory(markdown: string, history: HistoryContext | null): string {
  const section = historySectionMarkdown(history);
  return section.length === 0 ? markdown : `${markdown.trimEnd()}\n\n${section.join("\n")}`;
}

/** Renders both reports from data already read (pure apart from the samples reader passed in). */
export function renderReports(
  results: Results,
  samplesOf: (file: string | null) => SampleSeries,
  assets: HtmlAssets,
  options: ModelOptions = {},
): { markdown: string; html: string; summary: string; json: SummaryJson } {
  const model = buildModel(results, options);
  const charts = reportCharts(model, samplesOf);
  return {
    markdown: withHistory(renderMarkdown(model), options.history ?? null),
    html: renderHtml(model, charts, assets),
    summary: summaryBlock(model),
    json: summaryJson(model),
  };
}

/** Re-renders report.md and report.html of a run directory from its results.json and samples. */
export async function writeReports(
  runDir: string,
  given?: Results,
  options: ModelOptions = {},
): Promise<{
  markdown: string;
  mdPath: string;
  htmlPath: string;
  results: Results;
  summary: string;
  json: SummaryJson;
}> {
  const results = given ?? readResults(runDir);
  const { markdown, html, summary, json } = renderReports(
    results,
    (f) => readSamples(runDir, f),
    loadAssets(),
    options,
  );
  const mdPath = join(runDir, "report.md");
  const htmlPath = join(runDir, "report.html");
  // Both are rendered before either is written; a folder that cannot take them is one line, not a stack.
  const files: [string, string][] = [
    [mdPath, markdown],
    [htmlPath, html],
  ];
  const tmps = files.map(([path]) => tempPathFor(path));
  let writing = mdPath;
  try {
    for (const [i, [path, text]] of files.entries()) {
      writing = path;
      writeFileSync(tmps[i] as string, text);
    }
    for (const [i, [path]] of files.entries()) renameSync(tmps[i] as string, path);
  } catch (e) {
    for (const tmp of tmps) {
      try {
        rmSync(tmp, { force: true }); // a temp file of ours only: never a directory
      } catch {
        // not ours to remove
      }
    }
    // A full disk is not a bad input: the results are whole, the reports can be rendered again later.
    if (isDiskFull(e)) throw new DiskFullError(writing, "writing the reports");
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new ReportInputError(`cannot write the reports into ${runDir} (${code}); the run's results are unchanged`);
  }
  return { markdown, mdPath, htmlPath, results, summary, json };
}

// Reports and the guard's decision written together, the one way bench and `report --ceiling` both
// do it: the guard lines go into report.md (its guard section) and into guard.txt, byte for byte the
// same whichever command wrote them.
export type JudgedReports = Awaited<ReturnType<typeof writeReports>> & { guard: GuardDecision | null };

/** Renders report.md and report.html of a run, judged by `guard` when given (then also guard.txt). */
export async function writeJudgedReports(
  runDir: string,
  given: Results | undefined,
  guard: GuardConfig | null,
  minEffect?: MinEffect,
  history?: HistoryContext | null,
): Promise<JudgedReports> {
  const results = given ?? readResults(runDir);
  const decision = guard ? judge(results, guard) : null;
  const written = await writeReports(runDir, results, {
    ...(guard ? { guard } : {}),
    ...(minEffect ? { minEffect } : {}),
    ...(history ? { history } : {}),
    guardLines: decision?.lines ?? null,
  });
  if (decision) writeFileAtomic(join(runDir, "guard.txt"), `${decision.lines.join("\n")}\n`);
  return { ...written, guard: decision };
}
