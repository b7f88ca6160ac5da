// The report model -> report.md (pure). Ready to paste into a pull request; no render timestamps, so
// the same results.json renders the same bytes.

import { leakMarkdown } from "../leak/report.js";
import { stormMarkdown } from "../storm/report.js";
import { failuresMarkdown } from "./failures.js";
import { arrow, chunkSet, mib, ms, ratio, size } from "./format.js";
import type { Metric } from "./metrics.js";
import type { ReportModel } from "./model.js";
import type { CellVerdict } from "./verdicts.js";

/** Human names of the paired metrics. */
export const METRIC_LABELS: Record<Metric, string> = {
  completionMs: "completion time (latency cases)",
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

/** Escapes text for a Markdown table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
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
        c.label,
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
      c.label,
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
  return c ? table(c.header, c.rows) : ["No latency trials in this run."];
}

function intervalText(iv: { median: number; p99: number; max: number } | null): string {
  return iv ? `${ms(iv.median)} / ${ms(iv.p99)} / ${ms(iv.max)}` : "n/a";
}

/** The heap lane's cadence and its longest stretch without an answer: "10.0 / 12.1 / 480 ms; gap 480 ms". */
export function heapLaneText(iv: { median: number; p99: number; max: number } | null, gapMs: number | null): string {
  if (!iv) return "n/a";
  return gapMs === null ? intervalText(iv) : `${intervalText(iv)}; gap ${ms(gapMs)}`;
}

export function memoryCells(model: ReportModel): Cells | null {
  if (model.memory.length === 0 || (!model.roles && !model.single)) return null;
  const mibPair = (p: { baseline: number | null; candidate: number | null }, digits = 1, unit = "MiB") =>
    pairText(model, mib(p.baseline, digits), mib(p.candidate, digits), unit);
  return {
    header: [
      "script size / subscriptions",
      "mode",
      "ok trials",
      "peak heap",
      "peak RSS",
      "post-GC heap",
      "retained heap",
      "kernel peak RSS (VmHWM)",
      "MiB through completion",
      "target CPU",
      "RSS interval median / p99 / max (ms)",
      "heap interval median / p99 / max (ms); longest heap gap",
    ],
    rows: model.memory.map((m) => [
      `${size(m.scriptBytes)} / ${m.clients}`,
      m.mode,
      model.single ? String(m.trials.baseline) : `${m.trials.baseline} / ${m.trials.candidate}`,
      mibPair(m.peakHeapBytes),
      mibPair(m.peakRssBytes),
      mibPair(m.postGcHeapBytes),
      mibPair(m.retainedHeapBytes, 2),
      mibPair(m.hwmRssBytes),
      mibPair(m.bytesThroughCompletion, 2, ""),
      pairText(model, ms(m.targetCpuMs.baseline, 0), ms(m.targetCpuMs.candidate, 0), "ms"),
      model.single
        ? intervalText(m.interval.baseline)
        : `${intervalText(m.interval.baseline)} → ${intervalText(m.interval.candidate)}`,
      model.single
        ? heapLaneText(m.heapInterval.baseline, m.heapGapMaxMs.baseline)
        : `${heapLaneText(m.heapInterval.baseline, m.heapGapMaxMs.baseline)} → ${heapLaneText(m.heapInterval.candidate, m.heapGapMaxMs.candidate)}`,
    ]),
  };
}

export function memoryTable(model: ReportModel): string[] {
  const c = memoryCells(model);
  return c ? table(c.header, c.rows) : ["No memory cells in this run."];
}

export function probeCells(model: ReportModel): Cells | null {
  if ((!model.roles && !model.single) || (model.latency.length === 0 && model.memory.length === 0)) return null;
  const fmt = (a: number | null, b: number | null) => pairText(model, ms(a), ms(b), "ms");
  return {
    header: ["cell", "max probe", "median probe"],
    rows: [
      ...model.latency.map((c) => [
        `latency: ${c.label}`,
        fmt(c.probe.baseline.maxMs, c.probe.candidate.maxMs),
        fmt(c.probe.baseline.medianMs, c.probe.candidate.medianMs),
      ]),
      ...model.memory.map((m) => [
        `memory: ${size(m.scriptBytes)} / ${m.clients} / ${m.mode}`,
        fmt(m.probe.baseline.maxMs, m.probe.candidate.maxMs),
        fmt(m.probe.baseline.medianMs, m.probe.candidate.medianMs),
      ]),
    ],
  };
}

export function probeTable(model: ReportModel): string[] {
  const c = probeCells(model);
  return c ? table(c.header, c.rows) : ["No probe figures."];
}

/** "±4.1%": the smallest change a cell could have ranked ("×2.5" past doubling), or "n/a" without an interval. */
export function detectableText(d: number | null): string {
  if (d === null) return "n/a";
  return d >= 2 ? `×${d.toFixed(1)}` : `±${((d - 1) * 100).toFixed(1)}%`;
}

/** The verdict cell: the verdict word and why. */
export function verdictText(v: CellVerdict): string {
  return `${v.verdict} (${v.reason})`;
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

export function metricTables(model: ReportModel): MetricTable[] {
  if (!model.roles) return [];
  const roles = model.roles;
  return model.metrics.map((m) => {
    const guard = m.guarded && model.guard;
    const rule = guard ? (model.guard?.confidence ? "interval low" : "median") : "";
    const title = `${m.metric}: ${METRIC_LABELS[m.metric]}${guard ? ` — guarded: FAIL when the ${rule} exceeds ${model.guard?.ceiling}` : ""}`;
    const header = ["cell", "median paired ratio", "95% CI"];
    if (model.hasAa) header.push("A/A band");
    header.push("pairs", "smallest detectable change", "verdict");
    const rows = m.cells.map((v) => {
      const row = [v.cell, v.median === null ? "n/a" : ratio(v.median), intervalCell(v)];
      if (model.hasAa) row.push(v.aaLow === null || v.aaHigh === null ? "n/a" : `${ratio(v.aaLow)}–${ratio(v.aaHigh)}`);
      row.push(`${v.pairs} / ${v.plannedPairs}`, detectableText(v.detectable), verdictText(v));
      return row;
    });
    const p = m.pooled;
    const pooled = p
      ? `Pooled over all cells (a summary, never a verdict): median of ${p.n} paired ratios ${roles.candidate}/${roles.baseline} ${ratio(p.median)}${p.n > 1 ? ` (95% CI ${ratio(p.ci.low)}–${ratio(p.ci.high)})` : ""}.`
      : "Pooled over all cells: no pairs.";
    return { title, header, rows, pooled };
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
  const failed = guarded.filter((v) => v.verdict === "fail").map((v) => `${v.metric} ${v.cell}`);
  const open = guarded.filter((v) => v.verdict === "missing" || v.undecided).map((v) => `${v.metric} ${v.cell}`);
  const rule = `${model.guard.confidence ? "interval low" : "median paired ratio"} per cell against ceiling ${model.guard.ceiling}`;
  if (failed.length > 0) {
    const also = open.length > 0 ? `; no verdict for ${open.join(", ")}` : "";
    return `Guard (${rule}): FAIL in ${failed.join(", ")}${also}.`;
  }
  if (open.length > 0) return `Guard (${rule}): NO VERDICT for ${open.join(", ")}.`;
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
          .map((c) => `${c.cell} (${c.matrix}): ${c.rounds} rounds, ${c.decided ? "decided" : "still undecided"}`)
          .join("; ");
  return `Auto-sampling: budget ${a.budgetSeconds} s, used ${a.spentSeconds.toFixed(1)} s; ${cells}.`;
}

const ROUNDS_WHY = {
  pairs: "reached",
  clear: "clear of the A/A band and 1.0 (indicative below 8 pairs)",
  budget: "budget spent",
  missing: "a pair missing",
} as const;

/** Sequential memory rounds: per cell, the pairs its headline verdicts rest on and why no more. */
export function memoryRoundsText(model: ReportModel): string | null {
  const m = model.memoryRounds;
  if (!m) return null;
  const cells = m.cells.map((c) => `${c.cell}: ${c.pairs} pairs, ${ROUNDS_WHY[c.why] ?? c.why}`).join("; ");
  return `Memory rounds (peak heap, peak RSS; up to ${m.targetPairs} pairs per cell): budget ${m.budgetSeconds} s, used ${m.spentSeconds.toFixed(1)} s; ${cells}.`;
}

export const VERDICT_NOTE =
  "Each cell is judged on its own: the median of its paired ratios candidate/baseline (trial i of one with trial i of the other, same round), with a seeded, smoothed percentile-bootstrap 95% interval. " +
  "Intervals from fewer than 8 pairs are marked indicative: they cover the true ratio less often than 95% of the time (about 85% at 3 pairs), so read them as a hint, not a bound. " +
  "The A/A band is the baseline measured against a second copy of itself in the same rounds; a ratio inside it is noise and is not ranked. " +
  'The smallest detectable change is the change this cell could have told from no change at its noise and pair count (80% power, 5% two-sided); a verdict of "noise" says nothing about changes smaller than that. ' +
  "Unguarded verdicts: lower, higher, noise (interval spans 1.0, inside the A/A band, or fewer than 3 pairs), missing (fewer ok pairs than planned). Guarded: pass, fail, noise, missing. Details: docs/statistics.md.";

/** The whole report.md. */
export function renderMarkdown(model: ReportModel): string {
  const r = model.roles;
  const out: string[] = ["# catchup-bench report", ""];
  if (r) {
    out.push(
      `Baseline **${r.baseline}**, candidate **${r.candidate}**. Ratios are candidate / baseline, paired trial by trial; below 1.0 the candidate is lower (for every figure here, lower is better).`,
      "",
    );
  } else if (model.single) {
    out.push(`A single target, **${model.single}**: its figures, with nothing to compare them with (no ratios).`, "");
  } else {
    out.push("This run has no variants.", "");
  }
  const guard = guardSummary(model);
  if (guard) out.push(`**${guard}**`, "");
  if (model.interrupted) out.push("**This run was interrupted: the tables hold only the trials that finished.**", "");
  if (model.loadWarning) out.push(`**${model.loadWarning}**`, "");
  if (model.otherVariants.length > 0) {
    out.push(`Variants not compared in these tables: ${model.otherVariants.join(", ")}.`, "");
  }
  out.push("## Latency: subscribe to completion marker", "", ...latencyTable(model), "");
  out.push(
    r
      ? "Median of the ok trials (completion: subscribe sent to the marker frame received; acknowledged: to that frame's ACK sent, so it includes the client's ACK delay, as the study's timer does); chunks are Chunk frames through the completion marker; the ratio is the median of the per-trial paired ratios of completionMs with its 95% bootstrap interval (per-cell verdicts for every metric are below)."
      : "Median of the ok trials (completion: subscribe sent to the marker frame received; acknowledged: to that frame's ACK sent, so it includes the client's ACK delay, as the study's timer does); chunks are Chunk frames through the completion marker.",
    "",
  );
  out.push("## Memory: server heap and RSS per cell (MiB)", "", ...memoryTable(model), "");
  out.push(
    "Medians over the cell's ok trials. Peaks are sampled from outside the server; VmHWM is the kernel's own peak RSS; post-GC heap is read after all clients closed and a forced GC; retained heap = post-GC minus the pre-connect baseline. Two sampling lanes, each with the cadence it achieved: RSS read from /proc on its own schedule, and heap asked of the server's inspector, which cannot answer while the server runs native code (a major GC, a large JSON.stringify, sync zlib or crypto); the longest heap gap is the longest stretch with no heap answer. Target CPU is the server's user + system CPU time over the sampled window.",
    "",
  );
  out.push("## Concurrent probe: unary RPC while the first chunk's ACK is held", "", ...probeTable(model), "");
  out.push(...leakMarkdown(model.leak, r));
  out.push(...stormMarkdown(model.storm, r, model.stormVerdicts));
  const tables = metricTables(model);
  if (tables.length > 0) {
    out.push("## Verdicts per cell", "", VERDICT_NOTE, "");
    const auto = autoSampleText(model);
    if (auto) out.push(auto, "");
    const rounds = memoryRoundsText(model);
    if (rounds) out.push(rounds, "");
    for (const t of tables) out.push(`### ${t.title}`, "", ...table(t.header, t.rows), "", t.pooled, "");
  }
  out.push(...failuresMarkdown(model.failureReport));
  out.push("## Environment", "", `Environment: ${model.environment}`, "", model.notMeasured, "");
  if (model.variantDescriptions.length > 0) {
    out.push(`Variants: ${model.variantDescriptions.join("; ")}.`, "");
  }
  return out.join("\n");
}
