// The report model -> report.md (pure). Ready to paste into a pull request; no render timestamps, so
// the same results.json renders the same bytes.

import { cellName, MODE_NOTE, memoryCellName } from "../results/cell-names.js";
import type { Metric } from "../results/metrics.js";
import type { MemoryRoundsWhy } from "../results/schema.js";
import { type CellVerdict, isIndicative } from "../results/verdict.js";
import { arrow, chunkSet, mib, ms, ratio } from "../util/format.js";
import { unanimousSignP } from "../util/stats.js";
import { isLatencyMetric } from "../verdicts/metrics.js";
import { attributionNote, attributionSections } from "./attribution.js";
import { failuresMarkdown } from "./failures.js";
import { mdText } from "./inert.js";
import { leakMarkdown } from "./leak.js";
import { loadLine, withDisturbedColumn } from "./load.js";
import type { ReportModel } from "./model.js";
import { type SplitCell, splitCells, splitNote } from "./rss-split.js";
import { stormMarkdown } from "./storm.js";
import {
  markedIndicative,
  ratioWithInterval,
  summaryMarkdown,
  summaryOf,
  verdictName,
  verdictWord,
} from "./summary.js";
import { mdTable } from "./tables.js";
import { targetsMarkdown } from "./targets.js";

/** Human names of the paired metrics. */
export const METRIC_LABELS: Record<Metric, string> = {
  completionMs: "marker received: completion time (latency cases)",
  acknowledgedMs: "marker acknowledged: the study's timer, one ACK delay more (latency cases)",
  firstChunkMs: "first chunk time (latency cases)",
  probeMs: "probe latency (latency cases)",
  peakHeapBytes: "peak heap (memory cells)",
  peakRssBytes: "peak RSS (memory cells)",
  hwmRssBytes: "kernel peak RSS, VmHWM (memory cells)",
  postGcHeapBytes: "post-GC heap (memory cells)",
  retainedHeapBytes: "retained heap (memory cells)",
  probeMaxMs: "max probe latency (memory cells)",
};

/** "0.742 (0.700–0.780)", or without an interval for a single pair (one pair has no spread). */
export function ratioCell(r: { median: number; n: number; ci: { low: number; high: number } } | null): string {
  if (!r) return "n/a";
  if (r.n === 1) return `${ratio(r.median)} (1 pair, no interval)`;
  return `${ratio(r.median)} (${ratio(r.ci.low)}–${ratio(r.ci.high)})`;
}

/** A table's header and cells, shared by report.md and report.html (null: nothing to show). */
export interface Cells {
  header: string[];
  rows: string[][];
}

/** One figure of a pair: "a → b unit" in a comparison, "a unit" for a single target. */
function pairText(model: ReportModel, a: string, b: string, unit = ""): string {
  if (model.single) return unit && a !== "n/a" ? `${a} ${unit}` : a;
  return arrow(a, b, unit);
}

export function latencyCells(model: ReportModel): Cells | null {
  const c = withAcknowledged(model, latencyCellsWithoutCpu(model));
  // The target's CPU time per session, where the results record it (older results do not).
  if (!c || !model.latency.some((k) => k.targetCpuMs.baseline !== null || k.targetCpuMs.candidate !== null)) return c;
  return {
    header: [...c.header, "target CPU per trial (median)"],
    rows: c.rows.map((row, i) => {
      const k = model.latency[i] as ReportModel["latency"][number];
      return [...row, pairText(model, ms(k.targetCpuMs.baseline, 0), ms(k.targetCpuMs.candidate, 0), "ms")];
    }),
  };
}

/**
 * Adds the acknowledged median (subscribe sent to the marker chunk's ACK sent) after the completion
 * medians, where the results record it (older results do not).
 */
function withAcknowledged(model: ReportModel, c: Cells | null): Cells | null {
  const recorded = model.latency.some(
    (k) => k.acknowledgedMedianMs.baseline !== null || k.acknowledgedMedianMs.candidate !== null,
  );
  if (!c || !recorded) return c;
  const at = model.roles ? 3 : 2;
  const cell = (k: ReportModel["latency"][number]) =>
    pairText(model, ms(k.acknowledgedMedianMs.baseline), ms(k.acknowledgedMedianMs.candidate), "ms");
  return {
    header: [...c.header.slice(0, at), "acknowledged median", ...c.header.slice(at)],
    rows: c.rows.map((row, i) => [
      ...row.slice(0, at),
      cell(model.latency[i] as ReportModel["latency"][number]),
      ...row.slice(at),
    ]),
  };
}

function latencyCellsWithoutCpu(model: ReportModel): Cells | null {
  if (model.latency.length === 0) return null;
  const r = model.roles;
  if (!r) {
    return {
      header: ["case", `${model.single} median`, "chunks", "ok trials"],
      rows: model.latency.map((c) => [
        c.case,
        c.completionMedianMs.baseline === null ? "n/a" : `${ms(c.completionMedianMs.baseline)} ms`,
        chunkSet(c.chunks.baseline),
        String(c.trials.baseline),
      ]),
    };
  }
  return {
    header: [
      "case",
      `${r.baseline} median`,
      `${r.candidate} median`,
      `chunks ${r.baseline} → ${r.candidate}`,
      "ratio (95% CI)",
      "ok trials",
    ],
    rows: model.latency.map((c) => [
      c.case,
      c.completionMedianMs.baseline === null ? "n/a" : `${ms(c.completionMedianMs.baseline)} ms`,
      c.completionMedianMs.candidate === null ? "n/a" : `${ms(c.completionMedianMs.candidate)} ms`,
      arrow(chunkSet(c.chunks.baseline), chunkSet(c.chunks.candidate)),
      ratioCell(c.ratio),
      `${c.trials.baseline} / ${c.trials.candidate}`,
    ]),
  };
}

export function latencyTable(model: ReportModel): string[] {
  const c = latencyCells(model);
  return c ? mdTable(c.header, c.rows) : ["No latency trials in this run."];
}

function intervalText(iv: { median: number; p99: number; max: number } | null): string {
  return iv ? `${ms(iv.median)} / ${ms(iv.p99)} / ${ms(iv.max)}` : "n/a";
}

/** The memory figures per cell (medians of the ok trials, MiB); the sampler's health is its own table. */
export function memoryCells(model: ReportModel): Cells | null {
  if (model.memory.length === 0 || (!model.roles && !model.single)) return null;
  const mibPair = (p: { baseline: number | null; candidate: number | null }, digits = 1) =>
    pairText(model, mib(p.baseline, digits), mib(p.candidate, digits));
  return {
    header: [
      "cell",
      "ok trials",
      "peak heap",
      "peak RSS",
      "VmHWM",
      "post-GC heap",
      "retained heap",
      "through completion",
      "target CPU (ms)",
    ],
    rows: model.memory.map((m) => [
      memoryCellName(m),
      model.single ? String(m.trials.baseline) : `${m.trials.baseline} / ${m.trials.candidate}`,
      mibPair(m.peakHeapBytes),
      mibPair(m.peakRssBytes),
      mibPair(m.hwmRssBytes),
      mibPair(m.postGcHeapBytes),
      mibPair(m.retainedHeapBytes, 2),
      mibPair(m.bytesThroughCompletion, 2),
      pairText(model, ms(m.targetCpuMs.baseline, 0), ms(m.targetCpuMs.candidate, 0)),
    ]),
  };
}

/** The RSS split per memory cell, as the Markdown and HTML tables show it. */
export function rssSplitCellsOf(model: ReportModel): { cells: SplitCell[]; table: Cells | null } {
  const cells = model.memory.map((m) => ({
    name: memoryCellName(m),
    baseline: m.rssSplit.baseline,
    candidate: model.single ? null : m.rssSplit.candidate,
  }));
  return { cells, table: splitCells(cells, Boolean(model.single)) };
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

/** --attribute's sites per cell, baseline → candidate (or the single target's own). */
export function attributionOf(model: ReportModel) {
  const names = model.roles ?? (model.single ? { baseline: model.single, candidate: model.single } : null);
  if (!model.attribution || !names || model.attribution.rows.length === 0) return null;
  return {
    sections: attributionSections(model.attribution, model.memory, names),
    note: attributionNote(model.attribution),
  };
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

/** Both sampling lanes' achieved cadence per cell: median of the trials' medians, worst p99 and max. */
export function samplerCells(model: ReportModel): Cells | null {
  if (model.memory.length === 0 || (!model.roles && !model.single)) return null;
  const lane = (p: { baseline: Iv; candidate: Iv }) =>
    model.single ? intervalText(p.baseline) : `${intervalText(p.baseline)} → ${intervalText(p.candidate)}`;
  return {
    header: ["cell", "RSS lane median / p99 / max (ms)", "heap lane median / p99 / max (ms)"],
    rows: model.memory.map((m) => [memoryCellName(m), lane(m.interval), lane(m.heapInterval)]),
  };
}
type Iv = { median: number; p99: number; max: number } | null;

export function memoryTable(model: ReportModel): string[] {
  const c = memoryCells(model);
  return c ? mdTable(c.header, c.rows) : ["No memory cells in this run."];
}

function verdictOf(model: ReportModel, metric: Metric, cell: string): CellVerdict | undefined {
  return model.metrics.find((m) => m.metric === metric)?.cells.find((v) => v.cell === cell);
}

/**
 * The probe per cell, one aggregation each: a latency case sends one probe per trial (the median of
 * those); a memory cell sends one per client (the median over trials of each trial's maximum),
 * beside the paired ratio and verdict judged on the same figure.
 */
export function probeCells(model: ReportModel): Cells | null {
  if ((!model.roles && !model.single) || (model.latency.length === 0 && model.memory.length === 0)) return null;
  const fmt = (a: number | null, b: number | null) => pairText(model, ms(a), ms(b), "ms");
  const judged = Boolean(model.roles);
  const header = ["cell", "aggregation", "probe latency"];
  if (judged) header.push("paired ratio (95% CI)", "verdict");
  const tail = (metric: Metric, cell: string) => {
    const v = verdictOf(model, metric, cell);
    return judged ? [ratioWithInterval(v, true), v ? verdictWord(v) : "n/a"] : [];
  };
  return {
    header,
    rows: [
      ...model.latency.map((c) => [
        c.case,
        "median of trials",
        fmt(c.probe.baseline.medianMs, c.probe.candidate.medianMs),
        ...tail("probeMs", c.case),
      ]),
      ...model.memory.map((m) => [
        memoryCellName(m),
        "median of per-trial maxima",
        fmt(m.probe.baseline.medianOfMaxMs, m.probe.candidate.medianOfMaxMs),
        ...tail("probeMaxMs", `${m.scriptBytes}x${m.clients}/${m.mode}`),
      ]),
    ],
  };
}

export function probeTable(model: ReportModel): string[] {
  const c = probeCells(model);
  return c ? mdTable(c.header, c.rows) : ["No probe figures."];
}

/**
 * "−4.0% / +4.1%": the smallest change down and up a cell could have ranked (the detectable factor d
 * is symmetric on the log scale: ÷d or ×d), "÷2.5 / ×2.5" past doubling, "n/a" without an interval.
 */
export function detectableText(d: number | null, indicative = false): string {
  if (d === null) return "n/a";
  const text =
    d >= 2
      ? `÷${d.toFixed(1)} / ×${d.toFixed(1)}`
      : `−${((1 - 1 / d) * 100).toFixed(1)}% / +${((d - 1) * 100).toFixed(1)}%`;
  return indicative ? `${text} (indicative)` : text;
}

/** The verdict cell: the verdict word and why. */
export function verdictText(v: CellVerdict): string {
  return `${verdictName(v)} (${markedIndicative(v) ? "indicative: " : ""}${v.reason})`;
}

/** A cell's interval, marked "indicative" below RELIABLE_PAIRS pairs. */
export function intervalCell(v: CellVerdict): string {
  if (v.ciLow === null || v.ciHigh === null) return v.pairs === 1 ? "1 pair, no interval" : "n/a";
  const text = `${ratio(v.ciLow)}–${ratio(v.ciHigh)}`;
  return v.indicative ? `${text} (indicative)` : text;
}

/** One metric's per-cell table, its title and the pooled summary line under it. */
export interface MetricTable extends Cells {
  title: string;
  pooled: string;
}

export function metricTables(model: ReportModel, compact = false): MetricTable[] {
  if (!model.roles) return [];
  const roles = model.roles;
  return model.metrics.map((m) => {
    const guard = m.guarded && model.guard;
    const rule = guard ? (model.guard?.confidence ? "interval low" : "median") : "";
    // Compact (a large run): when every cell is indicative the title says so once, not every row.
    const allIndicative = compact && m.cells.every(isIndicative);
    const once = allIndicative
      ? " — every interval, detectable change and verdict indicative (fewer than 8 pairs)"
      : "";
    const title = `${m.metric}: ${METRIC_LABELS[m.metric]}${guard ? ` — guarded: FAIL when the ${rule} exceeds ${model.guard?.ceiling}` : ""}${once}`;
    const header = ["cell", "median paired ratio", "95% CI"];
    if (model.hasAa) header.push("A/A band");
    header.push("pairs", "smallest detectable change", "verdict");
    const rows = m.cells.map((v) => {
      const marked = allIndicative ? { ...v, indicative: false, signTest: undefined } : v;
      const row = [cellName(v.cell), v.median === null ? "n/a" : ratio(v.median), intervalCell(marked)];
      if (model.hasAa) row.push(v.aaLow === null || v.aaHigh === null ? "n/a" : `${ratio(v.aaLow)}–${ratio(v.aaHigh)}`);
      row.push(
        `${v.pairs} / ${v.plannedPairs}`,
        detectableText(v.detectable, marked.indicative),
        compact ? verdictWord(marked) : verdictText(marked),
      );
      return row;
    });
    const p = m.pooled;
    const pooled = p
      ? `Pooled over all cells (a summary, never a verdict): median of ${p.n} paired ratios ${roles.candidate}/${roles.baseline} ${ratio(p.median)}${p.n > 1 ? ` (95% CI ${ratio(p.ci.low)}–${ratio(p.ci.high)})` : ""}.`
      : "Pooled over all cells: no pairs.";
    const matrix = isLatencyMetric(m.metric) ? "latency" : "memory";
    return withDisturbedColumn(
      model.load,
      matrix,
      m.cells.map((v) => v.cell),
      { title, header, rows, pooled },
    );
  });
}

/** One line for the top of the report: the guard's decision, per cell. */
export function guardSummary(model: ReportModel): string | null {
  if (!model.guard) return null;
  if (!model.roles) return "Guard: a single target, nothing to compare: not judged.";
  const guarded: Array<{ metric: string; cell: string; verdict: string; undecided: boolean }> = [
    ...model.metrics.flatMap((m) => m.cells.filter((v) => v.guarded)),
    ...model.stormVerdicts.filter((v) => v.guarded),
  ];
  const failed = guarded.filter((v) => v.verdict === "fail").map((v) => `${v.metric} ${cellName(v.cell)}`);
  const open = guarded
    .filter((v) => v.verdict === "missing" || v.undecided)
    .map((v) => `${v.metric} ${cellName(v.cell)}`);
  const rule = `${model.guard.confidence ? "interval low" : "median paired ratio"} per cell against ceiling ${model.guard.ceiling}`;
  if (failed.length > 0) {
    const also = open.length > 0 ? `; no verdict for ${open.join("; ")}` : "";
    return `Guard (${rule}): FAIL in ${failed.join("; ")}${also}.`;
  }
  if (open.length > 0) return `Guard (${rule}): NO VERDICT for ${open.join("; ")}.`;
  return `Guard (${rule}): PASS in all ${guarded.length} guarded cells.`;
}

/** The auto-sampling summary: budget, time used, rounds per resampled cell. */
export function autoSampleText(model: ReportModel): string | null {
  const a = model.autoSample;
  if (!a) return null;
  const cells =
    a.cells.length === 0
      ? "no guarded cell needed more rounds"
      : a.cells
          .map(
            (c) =>
              `${cellName(c.cell)} (${c.matrix}): ${c.rounds} rounds, ${c.decided ? "decided" : "still undecided"}`,
          )
          .join("; ");
  return `Auto-sampling: budget ${a.budgetSeconds} s, used ${a.spentSeconds.toFixed(1)} s; ${cells}.`;
}

const ROUNDS_WHY: Record<MemoryRoundsWhy, (pairs: number) => string> = {
  pairs: () => "reached",
  // Fewer pairs sufficed: the sign test's exact p, not the (undercovering) interval, is the evidence.
  clear: (n) =>
    `sufficed: all ${n} ratios beyond the A/A band and 1.0 on one side (sign test p = ${unanimousSignP(n).toFixed(3)})`,
  // Two one-sided sign tests (median above 1 - t, below 1 + t), each p = 2^-n.
  equivalent: (n) =>
    `sufficed: all ${n} ratios within the practical floor (equivalence sign tests p = ${(unanimousSignP(n) / 2).toFixed(3)})`,
  budget: () => "budget spent",
  missing: () => "a pair missing",
};

/** Sequential memory rounds: per cell, the pairs its headline verdicts rest on and why no more. */
export function memoryRoundsText(model: ReportModel): string | null {
  const m = model.memoryRounds;
  if (!m) return null;
  const cells = m.cells
    .map((c) => `${cellName(c.cell)}: ${c.pairs} pairs, ${ROUNDS_WHY[c.why]?.(c.pairs) ?? c.why}`)
    .join("; ");
  return `Memory rounds (peak heap, peak RSS; up to ${m.targetPairs} pairs per cell): budget ${m.budgetSeconds} s, used ${m.spentSeconds.toFixed(1)} s; ${cells}.`;
}

export const VERDICT_NOTE =
  "Each cell is judged on its own: the median of its paired ratios candidate/baseline (trial i of one with trial i of the other, same round), with a seeded, smoothed percentile-bootstrap 95% interval. " +
  "Intervals from fewer than 8 pairs are marked indicative: they cover the true ratio less often than 95% of the time (about 85% at 3 pairs), so read them as a hint, not a bound; so are the verdicts resting on them, unless an exact sign test of the sequential memory rounds decided the verdict. " +
  "The A/A band is the baseline measured against a second copy of itself in the same rounds; a ratio inside it is noise and is not ranked. " +
  'The smallest detectable change is the change this cell could have told from no change at its noise and pair count (80% power, 5% two-sided); a verdict of "noise" says nothing about changes smaller than that. ' +
  "The detectable change is shown both ways (−x% / +y%: a ratio of 1/d or d), marked indicative like the interval it comes from. " +
  "Unguarded verdicts: lower, higher (or higher, expected: the first chunk carries the whole catch-up when the candidate sends fewer chunks), no practical change (the median and its whole interval within the practical floor, --min-effect), noise (interval spans 1.0, inside the A/A band, or fewer than 3 pairs), missing (fewer ok pairs than planned). " +
  "Guarded: pass, fail, noise, missing, too few pairs (fewer than --guard-min-pairs: no PASS or FAIL). Details: docs/statistics.md.";

/** GitHub's limit for one comment: report.md must fit it. */
export const COMMENT_LIMIT = 65_536;
/** The per-cell tables a large run's report.md leaves to report.html (figures beside the headline ones). */
const COMPACT_DROPPED: readonly Metric[] = ["hwmRssBytes", "retainedHeapBytes"];
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
      if (compact && COMPACT_DROPPED.some((m) => t.title.startsWith(`${m}:`))) continue;
      out.push(`### ${mdText(t.title)}`, "", ...mdTable(t.header, t.rows), "", mdText(t.pooled), "");
    }
  }
  out.push(...failuresMarkdown(model.failureReport));
  out.push(...targetsMarkdown(model.targets));
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
  if (process.env.DEBUG_LEN) require("node:fs").writeFileSync("/tmp/compact.md", compact);
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
