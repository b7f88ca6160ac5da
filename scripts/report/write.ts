// The edge of the reports: read results.json and the sample files of a run directory, render
// report.md and report.html, and write both atomically (temp file, then rename). Never re-measures.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { RESULTS_SCHEMA, type Results, type SampleLine } from "../results.js";
import { type Chart, latencyChart, memoryChart, type SampleSeries } from "./charts.js";
import { type HtmlAssets, renderHtml } from "./html.js";
import { renderMarkdown } from "./markdown.js";
import { buildModel } from "./model.js";

/** A run directory that cannot be reported (missing or foreign results.json). */
export class ReportInputError extends Error {
  override readonly name = "ReportInputError";
}

export function readResults(runDir: string): Results {
  const path = join(runDir, "results.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ReportInputError(
      `no results.json in ${runDir} (${(e as NodeJS.ErrnoException).code ?? e}); pass a run directory written by \`catchup-bench bench\``,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ReportInputError(`${path} is not valid JSON (${(e as Error).message})`);
  }
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  if (schema !== RESULTS_SCHEMA) {
    throw new ReportInputError(`${path} has schema ${JSON.stringify(schema)}; this version reads ${RESULTS_SCHEMA}`);
  }
  return parsed as Results;
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

function readSamples(runDir: string, file: string | null): SampleSeries {
  if (!file) return null;
  try {
    return parseSamples(readFileSync(resolve(runDir, file), "utf8"));
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

/** Writes a file atomically: a temp file beside it, then rename (readers never see half a report). */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Renders both reports from data already read (pure apart from the samples reader passed in). */
export function renderReports(
  results: Results,
  samplesOf: (file: string | null) => SampleSeries,
  assets: HtmlAssets,
): { markdown: string; html: string } {
  const model = buildModel(results);
  const charts: Chart[] = [];
  if (model.roles) {
    const roles = model.roles;
    model.latency.forEach((c, i) => {
      charts.push(latencyChart(c, roles, i));
    });
    model.memory.forEach((m, i) => {
      charts.push(memoryChart(m, roles, [samplesOf(m.samplesFile.baseline), samplesOf(m.samplesFile.candidate)], i));
    });
  }
  return { markdown: renderMarkdown(model), html: renderHtml(model, charts, assets) };
}

/** Re-renders report.md and report.html of a run directory from its results.json and samples. */
export async function writeReports(runDir: string): Promise<{ markdown: string; mdPath: string; htmlPath: string }> {
  const results = readResults(runDir);
  const { markdown, html } = renderReports(results, (f) => readSamples(runDir, f), loadAssets());
  const mdPath = join(runDir, "report.md");
  const htmlPath = join(runDir, "report.html");
  writeAtomic(mdPath, markdown);
  writeAtomic(htmlPath, html);
  return { markdown, mdPath, htmlPath };
}
