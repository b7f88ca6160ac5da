// The report model -> report.md (pure): the Markdown rendering of table-data.ts's tables and
// verdict-wording.ts's lines. Ready to paste into a pull request; no render timestamps, so the same
// results.json renders the same bytes.

import { MODE_NOTE } from "../results/cell-names.js";
import { METRICS, type Metric, metricOf } from "../results/metric-names.js";
import { failuresMarkdown } from "./failures.js";
import { leakMarkdown } from "./leak-section.js";
import { loadLine } from "./load-section.js";
import { mdTable, mdText } from "./markup.js";
import type { ReportModel } from "./model.js";
import { splitNote } from "./rss-split-section.js";
import { stormMarkdown } from "./storm-section.js";
import { summaryMarkdown, summaryOf } from "./summary.js";
import {
  attributionOf,
  latencyCells,
  memoryCells,
  metricTables,
  probeCells,
  rssSplitCellsOf,
  SEED_NOTE,
  samplerCells,
  seedCells,
} from "./table-data.js";
import { targetsMarkdown } from "./targets.js";
import { autoSampleText, guardSummary, memoryRoundsText, VERDICT_NOTE } from "./verdict-wording.js";

export function latencyTable(model: ReportModel): string[] {
  const c = latencyCells(model);
  return c ? mdTable(c.header, c.rows) : ["No latency trials in this run."];
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

export function memoryTable(model: ReportModel): string[] {
  const c = memoryCells(model);
  return c ? mdTable(c.header, c.rows) : ["No memory cells in this run."];
}

export function probeTable(model: ReportModel): string[] {
  const c = probeCells(model);
  return c ? mdTable(c.header, c.rows) : ["No probe figures."];
}

/** GitHub's limit for one comment: report.md must fit it. */
export const COMMENT_LIMIT = 65_536;
/** The per-cell tables a large run's report.md leaves to report.html (the metric table's compact: false). */
const COMPACT_DROPPED: readonly Metric[] = METRICS.filter((m) => !metricOf(m).compact);
/** Beyond this many cells the details go to report.html only. */
export const MAX_DETAIL_CELLS = 64;

/** The cases' meanings, said once (the tables name a case by its id). */
function casesNote(model: ReportModel): string | null {
  if (model.latency.length === 0) return null;
  return `Cases: ${model.latency.map((k) => (k.label === k.case ? k.case : `${k.case} (${k.label})`)).join("; ")}.`;
}

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

/** Everything below the summary: the figures' full tables, verdicts, sampler health, environment. */
export function detailsMarkdown(model: ReportModel, compact = false): string[] {
  const r = model.roles;
  const out: string[] = [];
  if (model.guardLines && compact) out.push("## Guard, per cell", "", "One line per guarded cell: guard.txt.", "");
  else if (model.guardLines) out.push("## Guard, per cell", "", "```", ...model.guardLines.map(fenceSafe), "```", "");
  out.push("## Latency: subscribe to completion marker", "", ...latencyTable(model), "");
  const cases = casesNote(model);
  out.push(
    `Median of the ok trials (completion: subscribe sent to the marker frame received; acknowledged: to that frame's ACK sent, so it includes the client's ACK delay, as the study's timer does); chunks are Chunk frames through the completion marker${r ? "; the ratio is the median of the per-trial paired ratios of completionMs with its 95% bootstrap interval" : ""}.${cases ? ` ${cases}` : ""}`,
    "",
  );
  out.push("## Memory: server heap and RSS per cell (MiB, medians of the ok trials)", "", ...memoryTable(model), "");
  out.push(
    "Peaks are sampled from outside the server; VmHWM is the kernel's own peak RSS; post-GC heap is read after all clients closed and a forced GC; retained heap = post-GC minus the pre-connect baseline; through completion: bytes of the frames up to the marker; target CPU: the server's user + system CPU time over the sampled window.",
    "",
  );
  out.push(...rssSplitMarkdown(model));
  out.push(...attributionMarkdown(model));
  const sampler = samplerCells(model);
  if (sampler) {
    out.push("## Sampler health: the cadence each lane achieved", "", ...mdTable(sampler.header, sampler.rows), "");
    out.push(
      "RSS is read from /proc on its own schedule; heap is asked of the server's inspector, which cannot answer while the server runs native code (a major GC, a large JSON.stringify, sync zlib or crypto), so the heap lane's max is its longest stretch without an answer. Median of the trials' medians, worst p99 and max.",
      "",
    );
  }
  const probe = model.conditions.probeTag ? `\`${model.conditions.probeTag.replace(/`/g, "")}\`` : "the probe RPC";
  out.push(`## Concurrent probe: ${probe} while the first chunk's ACK is held`, "", ...probeTable(model), "");
  out.push(...leakMarkdown(model.leak, r));
  out.push(...stormMarkdown(model.storm, r, model.stormVerdicts));
  const tables = metricTables(model, compact);
  if (tables.length > 0) {
    out.push("## Verdicts per cell", "", VERDICT_NOTE, "");
    if (compact) {
      out.push(
        `To fit one comment: verdicts without their reasons, and no per-cell tables for ${COMPACT_DROPPED.join(" and ")} (report.html and results.json have them).`,
        "",
      );
    }
    // Cell names and reasons come from results.json, which may be hand-edited: inert, like any foreign text.
    const auto = autoSampleText(model);
    if (auto) out.push(mdText(auto), "");
    const load = loadLine(model.load);
    if (load) out.push(load, "");
    const rounds = memoryRoundsText(model);
    if (rounds) out.push(mdText(rounds), "");
    for (const t of tables) {
      if (compact && COMPACT_DROPPED.includes(t.metric)) continue;
      out.push(`### ${mdText(t.title)}`, "", ...mdTable(t.header, t.rows), "", mdText(t.pooled), "");
    }
  }
  out.push(...failuresMarkdown(model.failureReport));
  out.push(...targetsMarkdown(model.targets));
  const seeds = seedCells(model);
  if (seeds)
    out.push(
      "## Seeding: each variant's state, through its own API",
      "",
      ...mdTable(seeds.header, seeds.rows),
      "",
      SEED_NOTE,
      "",
    );
  out.push("## Environment", "", `Environment: ${mdText(model.environment)}`, "", mdText(model.notMeasured), "");
  if (model.variantDescriptions.length > 0) {
    out.push(`Variants: ${model.variantDescriptions.map(mdText).join("; ")}.`, "");
  }
  return out;
}

/** A guard line inside a fenced block: a line of backticks from a target's text cannot close it. */
function fenceSafe(line: string): string {
  return line.replace(/```/g, "`\u200b``");
}

/**
 * The whole report.md: the summary block, then everything else folded under <details> (GitHub
 * renders it closed). It fits one GitHub comment: past MAX_DETAIL_CELLS cells, or when the details
 * would not fit, they go to report.html alone and report.md says so.
 */
export function renderMarkdown(model: ReportModel): string {
  const head = headMarkdown(model);
  const details = detailsMarkdown(model);
  const fold = (body: string[]) => [
    "<details>",
    "<summary>Details: every figure, per-cell verdicts, probe, sampler health, environment</summary>",
    "",
    ...body,
    "</details>",
    "",
  ];
  const full = [...head, ...fold(details)].join("\n");
  const cells = model.latency.length + model.memory.length;
  if (cells <= MAX_DETAIL_CELLS && full.length <= COMMENT_LIMIT) return full;
  // A large run: the verdicts without their reasons, before giving up on the details.
  const compact = [...head, ...fold(detailsMarkdown(model, true))].join("\n");
  if (cells <= MAX_DETAIL_CELLS && compact.length <= COMMENT_LIMIT) return compact;
  const why =
    cells > MAX_DETAIL_CELLS
      ? `${cells} cells (more than ${MAX_DETAIL_CELLS})`
      : `details of ${full.length.toLocaleString("en-US")} characters`;
  return [
    ...head,
    `The details (every figure, per-cell verdicts, probe, sampler health, environment) are in report.html: with ${why} they would not fit one GitHub comment (${COMMENT_LIMIT.toLocaleString("en-US")} characters).`,
    "",
    ...(model.guardLines ? ["```", ...model.guardLines.map(fenceSafe), "```", ""] : []),
  ].join("\n");
}
