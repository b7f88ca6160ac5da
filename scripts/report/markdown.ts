// The report model -> report.md (pure): the Markdown rendering of table-data.ts's tables and
// verdict-wording.ts's lines. Ready to paste into a pull request; no render timestamps, so the same
// results.json renders the same bytes.

import { MODE_NOTE } from "../results/cell-names.js";
import { inHeadline, type Metric, metricOf } from "../results/metric-names.js";
import { outsideHeadline } from "./columns.js";
import { failuresMarkdown } from "./failures.js";
import { leakMarkdown } from "./leak-section.js";
import { loadLine } from "./load-section.js";
import { mdCells, mdTable, mdText } from "./markup.js";
import type { ReportModel } from "./model.js";
import { splitNote } from "./rss-split-section.js";
import { stormMarkdown } from "./storm-section.js";
import { summaryMarkdown, summaryOf } from "./summary.js";
import {
  attributionOf,
  latencyCells,
  latencyColumns,
  latencyNote,
  memoryCells,
  memoryColumns,
  memoryNote,
  metricTables,
  probeCells,
  rssSplitCellsOf,
  SEED_NOTE,
  samplerCells,
  seedCells,
} from "./table-data.js";
import { targetsMarkdown } from "./targets.js";
import { autoSampleText, guardSummary, memoryRoundsText, VERDICT_NOTE } from "./verdict-wording.js";

/** The latency table of report.md (with `headlineOnly`, its columns outside the headline left out). */
function latencyMarkdown(model: ReportModel, headlineOnly: boolean): string[] {
  const c = latencyCells(model, headlineOnly);
  if (!c) return ["No latency trials in this run.", ""];
  return [...mdCells(c), "", mdText(latencyNote(model, headlineOnly)), ""];
}

/** The memory table of report.md, the same way. */
function memoryMarkdown(model: ReportModel, headlineOnly: boolean): string[] {
  const c = memoryCells(model, headlineOnly);
  if (!c) return ["No memory cells in this run.", ""];
  return [...mdCells(c), "", mdText(memoryNote(model, headlineOnly)), ""];
}

function rssSplitMarkdown(model: ReportModel): string[] {
  const { cells, table } = rssSplitCellsOf(model);
  if (!table) return [];
  return [
    "## Where the RSS was at its peak (MiB, medians of the ok trials)",
    "",
    ...mdTable(table.header, table.rows),
    "",
    splitNote(cells),
    "",
  ];
}

function attributionMarkdown(model: ReportModel): string[] {
  const a = attributionOf(model);
  if (!a) return [];
  const out = ["## Allocation sites at the peak heap (--attribute)", "", mdText(a.note), ""];
  for (const s of a.sections) {
    out.push(`### ${mdText(s.cell)}`, "");
    if (s.peak) out.push(...mdTable(s.peak.header, s.peak.rows), "");
    for (const l of s.lines) out.push(mdText(l), "");
  }
  return out;
}

function probeMarkdown(model: ReportModel): string[] {
  const c = probeCells(model);
  return c ? mdTable(c.header, c.rows) : ["No probe figures."];
}

/** GitHub's limit for one comment: report.md must fit it. */
export const COMMENT_LIMIT = 65_536;
/**
 * How report.md shortens to fit one comment: step by step in this order, each keeping the ones before
 * it, until it fits; past the last, the details go to report.html alone. The summary block above them
 * is never shortened.
 */
export const SHORTENING = [
  "verdict reasons, and the per-cell verdict tables outside the compact form",
  "columns outside the headline",
  "per-cell verdict tables outside the headline",
] as const;
/** Beyond this many cells the details go to report.html only. */
export const MAX_DETAIL_CELLS = 64;

/** The lines above the details: the summary, the guard's decision and the run's warnings. */
function headMarkdown(model: ReportModel): string[] {
  const out = summaryMarkdown(summaryOf(model));
  const r = model.roles;
  if (!r && model.single) {
    out.push(
      `A single target, **${mdText(model.single)}**: its figures, with nothing to compare them with (no ratios).`,
      "",
    );
  } else if (!r) {
    out.push("This run has no variants.", "");
  }
  const guard = guardSummary(model);
  if (guard) out.push(`**${mdText(guard)}**`, "");
  if (model.interrupted) out.push("**This run was interrupted: the tables hold only the trials that finished.**", "");
  if (model.loadWarning) out.push(`**${model.loadWarning}**`, "");
  if (r) {
    out.push(
      `Ratios are ${mdText(r.candidate)} / ${mdText(r.baseline)}, paired trial by trial (lower is better for every figure); medians of the ok trials; intervals from fewer than 8 pairs are indicative. ${MODE_NOTE}`,
      "",
    );
  }
  if (model.otherVariants.length > 0) {
    out.push(`Variants not compared in these tables: ${model.otherVariants.map(mdText).join(", ")}.`, "");
  }
  return out;
}

/** The summary block alone (--summary-md, $GITHUB_STEP_SUMMARY): the lines above the details. */
export function summaryBlock(model: ReportModel): string {
  return headMarkdown(model).join("\n");
}

/** What each step of SHORTENING leaves out of this report, in a few words; empty where it leaves nothing out. */
function droppedParts(model: ReportModel, steps: number): string[] {
  const parts: string[] = [];
  const judged = model.metrics.map((m) => m.metric);
  const tables = (keep: (m: Metric) => boolean) => judged.filter((m) => !keep(m)).join(", ");
  if (steps >= 1 && judged.length > 0) {
    parts.push("verdicts without their reasons");
    const outside = tables((m) => metricOf(m).compact);
    if (outside) parts.push(`no per-cell tables for ${outside}`);
  }
  if (steps >= 2) {
    const columns = [
      ...new Set([
        ...outsideHeadline(latencyColumns(model), model.latency),
        ...outsideHeadline(memoryColumns(model), model.memory),
      ]),
    ];
    if (columns.length > 0) parts.push(`no columns outside the headline (${columns.join(", ")})`);
  }
  if (steps >= 3) {
    // The compact form's tables outside the headline (the others went at step 1).
    const outside = tables((m) => !metricOf(m).compact || inHeadline(m));
    if (outside) parts.push(`no per-cell tables for ${outside} either (outside the headline)`);
  }
  return parts;
}

/** The per-cell verdict tables, with the lines above them; `steps` of SHORTENING applied. */
function verdictsMarkdown(model: ReportModel, steps: number): string[] {
  const tables = metricTables(model, steps >= 1).filter((t) => {
    const d = metricOf(t.metric);
    return (steps < 1 || d.compact) && (steps < 3 || inHeadline(t.metric));
  });
  if (tables.length === 0) return [];
  const out = ["## Verdicts per cell", "", VERDICT_NOTE, ""];
  // Cell names and reasons come from results.json, which may be hand-edited: inert, like any foreign text.
  const auto = autoSampleText(model);
  if (auto) out.push(mdText(auto), "");
  const load = loadLine(model.load);
  if (load) out.push(load, "");
  const rounds = memoryRoundsText(model);
  if (rounds) out.push(mdText(rounds), "");
  for (const t of tables)
    out.push(`### ${mdText(t.title)}`, "", ...mdTable(t.header, t.rows), "", mdText(t.pooled), "");
  return out;
}

/** The sampler's cadence per cell, and what it means. */
function samplerMarkdown(model: ReportModel): string[] {
  const sampler = samplerCells(model);
  if (!sampler) return [];
  return [
    "## Sampler health: the cadence each lane achieved",
    "",
    ...mdTable(sampler.header, sampler.rows),
    "",
    "RSS is read from /proc on its own schedule; heap is asked of the server's inspector, which cannot answer while the server runs native code (a major GC, a large JSON.stringify, sync zlib or crypto), so the heap lane's max is its longest stretch without an answer. Median of the trials' medians, worst p99 and max.",
    "",
  ];
}

/** The seeds, the environment and the variants: the end of the details. */
function closingMarkdown(model: ReportModel): string[] {
  const out: string[] = [];
  const seeds = seedCells(model);
  if (seeds) {
    out.push("## Seeding: each variant's state, through its own API", "", ...mdTable(seeds.header, seeds.rows), "");
    out.push(SEED_NOTE, "");
  }
  out.push("## Environment", "", `Environment: ${mdText(model.environment)}`, "", mdText(model.notMeasured), "");
  if (model.variantDescriptions.length > 0) {
    out.push(`Variants: ${model.variantDescriptions.map(mdText).join("; ")}.`, "");
  }
  return out;
}

/**
 * Everything below the summary: the figures' tables, verdicts, sampler health, environment, with the
 * first `steps` of SHORTENING applied (0: whole) and a line saying what they left out.
 */
export function detailsMarkdown(model: ReportModel, steps = 0): string[] {
  const out: string[] = [];
  const dropped = droppedParts(model, steps);
  if (dropped.length > 0) {
    out.push(`To fit one comment: ${dropped.join("; ")} (report.html and results.json have them).`, "");
  }
  if (model.guardLines && steps >= 1) out.push("## Guard, per cell", "", "One line per guarded cell: guard.txt.", "");
  else if (model.guardLines) out.push("## Guard, per cell", "", "```", ...model.guardLines.map(fenceSafe), "```", "");
  out.push("## Latency: subscribe to completion marker", "", ...latencyMarkdown(model, steps >= 2));
  out.push("## Memory: server heap and RSS per cell (MiB, medians of the ok trials)", "");
  out.push(...memoryMarkdown(model, steps >= 2));
  out.push(...rssSplitMarkdown(model), ...attributionMarkdown(model), ...samplerMarkdown(model));
  const probe = model.conditions.probeTag ? `\`${model.conditions.probeTag.replace(/`/g, "")}\`` : "the probe RPC";
  out.push(`## Concurrent probe: ${probe} while the first chunk's ACK is held`, "", ...probeMarkdown(model), "");
  out.push(...leakMarkdown(model.leak, model.roles));
  out.push(...stormMarkdown(model.storm, model.roles, model.stormVerdicts));
  out.push(...verdictsMarkdown(model, steps));
  out.push(...failuresMarkdown(model.failureReport), ...targetsMarkdown(model.targets), ...closingMarkdown(model));
  return out;
}

/** A guard line inside a fenced block: a line of backticks from a target's text cannot close it. */
function fenceSafe(line: string): string {
  return line.replace(/```/g, "`\u200b``");
}

/** The details folded under <details> (GitHub renders it closed). */
function folded(body: string[]): string[] {
  return [
    "<details>",
    "<summary>Details: every figure, per-cell verdicts, probe, sampler health, environment</summary>",
    "",
    ...body,
    "</details>",
    "",
  ];
}

/**
 * The whole report.md and how many steps of SHORTENING it took to fit `limit` characters (null: the
 * details went to report.html): the summary block, then everything else folded under <details>. Past
 * MAX_DETAIL_CELLS cells, or when even the shortest details would not fit, report.md says where they are.
 */
export function fitMarkdown(model: ReportModel, limit = COMMENT_LIMIT): { markdown: string; steps: number | null } {
  const head = headMarkdown(model);
  const cells = model.latency.length + model.memory.length;
  const full = [...head, ...folded(detailsMarkdown(model))].join("\n");
  if (cells <= MAX_DETAIL_CELLS) {
    for (let steps = 0; steps <= SHORTENING.length; steps++) {
      const markdown = steps === 0 ? full : [...head, ...folded(detailsMarkdown(model, steps))].join("\n");
      if (markdown.length <= limit) return { markdown, steps };
    }
  }
  const why =
    cells > MAX_DETAIL_CELLS
      ? `${cells} cells (more than ${MAX_DETAIL_CELLS})`
      : `details of ${full.length.toLocaleString("en-US")} characters`;
  const markdown = [
    ...head,
    `The details (every figure, per-cell verdicts, probe, sampler health, environment) are in report.html: with ${why} they would not fit one GitHub comment (${COMMENT_LIMIT.toLocaleString("en-US")} characters).`,
    "",
    ...(model.guardLines ? ["```", ...model.guardLines.map(fenceSafe), "```", ""] : []),
  ].join("\n");
  return { markdown, steps: null };
}

/** The whole report.md, fitted to one GitHub comment (fitMarkdown). */
export function renderMarkdown(model: ReportModel): string {
  return fitMarkdown(model).markdown;
}
