// The report model -> report.md (pure). Ready to paste into a pull request; no render timestamps, so
// the same results.json renders the same bytes.

import { arrow, change, chunkSet, mib, ms, ratio, size } from "./format.js";
import type { Metric } from "./metrics.js";
import { RELIABLE_PAIRS, type ReportModel } from "./model.js";

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

export function latencyCells(model: ReportModel): Cells | null {
  const r = model.roles;
  if (!r || model.latency.length === 0) return null;
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

export function memoryTable(model: ReportModel): string[] {
  if (!model.roles || model.memory.length === 0) return ["No memory cells in this run."];
  const mibPair = (p: { baseline: number | null; candidate: number | null }) =>
    arrow(mib(p.baseline), mib(p.candidate), "MiB");
  return table(
    [
      "script size / subscriptions",
      "mode",
      "peak heap",
      "peak RSS",
      "post-GC heap",
      "retained heap",
      "kernel peak RSS (VmHWM)",
      "MiB through completion",
      "sample interval median / p99 / max (ms)",
    ],
    model.memory.map((m) => [
      `${size(m.scriptBytes)} / ${m.clients}`,
      m.mode,
      mibPair(m.peakHeapBytes),
      mibPair(m.peakRssBytes),
      mibPair(m.postGcHeapBytes),
      arrow(mib(m.retainedHeapBytes.baseline, 2), mib(m.retainedHeapBytes.candidate, 2), "MiB"),
      mibPair(m.hwmRssBytes),
      arrow(mib(m.bytesThroughCompletion.baseline, 2), mib(m.bytesThroughCompletion.candidate, 2)),
      `${intervalText(m.interval.baseline)} → ${intervalText(m.interval.candidate)}`,
    ]),
  );
}

export function probeCells(model: ReportModel): Cells | null {
  if (!model.roles || (model.latency.length === 0 && model.memory.length === 0)) return null;
  const fmt = (a: number | null, b: number | null) => arrow(ms(a), ms(b), "ms");
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

/** The verdict cell: direction and size only when detected; otherwise "no difference detected". */
export function verdictText(p: ReportModel["paired"][number]): string {
  if (p.verdict === "no pairs") return "no pairs";
  if (p.verdict === "no difference detected") return `no difference detected (${p.reason})`;
  const s = p.summary;
  const few = s && s.n < RELIABLE_PAIRS ? ` (only ${s.n} pairs: indicative)` : "";
  return s ? `candidate ${p.verdict}: ${change(s.median)}${few}` : p.verdict;
}

export function pairedCells(model: ReportModel): Cells | null {
  if (!model.roles || model.paired.length === 0) return null;
  const header = ["metric", "median of paired ratios", "95% CI", "IQR", "pairs"];
  if (model.hasAa) header.push("A/A band");
  header.push("verdict");
  const rows = model.paired.map((p) => {
    const s = p.summary;
    const row = [
      `${p.metric}: ${METRIC_LABELS[p.metric]}`,
      s ? ratio(s.median) : "n/a",
      s ? `${ratio(s.ci.low)}–${ratio(s.ci.high)}` : "n/a",
      s ? ratio(s.iqr) : "n/a",
      String(s?.n ?? 0),
    ];
    if (model.hasAa) row.push(p.aaBand ? `${ratio(p.aaBand.low)}–${ratio(p.aaBand.high)}` : "n/a");
    row.push(verdictText(p));
    return row;
  });
  return { header, rows };
}

export function pairedTable(model: ReportModel): string[] {
  const c = pairedCells(model);
  return c ? table(c.header, c.rows) : ["No paired figures."];
}

/** The whole report.md. */
export function renderMarkdown(model: ReportModel): string {
  const r = model.roles;
  const out: string[] = ["# catchup-bench report", ""];
  if (!r) {
    out.push("This run has fewer than two variants: there is nothing to compare.", "");
  } else {
    out.push(
      `Baseline **${r.baseline}**, candidate **${r.candidate}**. Ratios are candidate / baseline, paired trial by trial; below 1.0 the candidate is lower (for every figure here, lower is better).`,
      "",
    );
  }
  if (model.interrupted) out.push("**This run was interrupted: the tables hold only the trials that finished.**", "");
  if (model.loadWarning) out.push(`**${model.loadWarning}**`, "");
  if (model.otherVariants.length > 0) {
    out.push(`Variants not compared in these tables: ${model.otherVariants.join(", ")}.`, "");
  }
  out.push("## Latency: subscribe to completion marker", "", ...latencyTable(model), "");
  out.push(
    "Median of the ok trials; chunks are Chunk frames through the completion marker; the ratio is the median of the per-trial paired ratios with its 95% bootstrap interval; with fewer than 8 pairs that interval is too narrow (it covers the truth well under 95% of the time), so read it as indicative only.",
    "",
  );
  out.push("## Memory: server heap and RSS per cell (MiB)", "", ...memoryTable(model), "");
  out.push(
    "Peaks are sampled from outside the server; VmHWM is the kernel's own peak RSS; post-GC heap is read after all clients closed and a forced GC; retained heap = post-GC minus the pre-connect baseline. The sample interval shows the cadence the sampler achieved.",
    "",
  );
  out.push("## Concurrent probe: unary RPC while the first chunk's ACK is held", "", ...probeTable(model), "");
  out.push("## Paired statistics", "", ...pairedTable(model), "");
  out.push(
    "Pairs: trial i of the baseline with trial i of the candidate in the same case or memory cell. Interval: seeded, smoothed percentile bootstrap of the median ratio (scripts/stats.ts). A difference whose interval spans 1.0" +
      (model.hasAa ? ", or whose median lies inside the A/A band (the baseline measured against itself)," : "") +
      ' is reported as "no difference detected" and not ranked.',
    "",
  );
  if (model.failures.length > 0) {
    out.push("## Failed trials", "");
    for (const f of model.failures) out.push(`- ${f.what}: ${f.error.replace(/\r?\n/g, " ")}`);
    out.push("");
  }
  out.push("## Environment", "", `Environment: ${model.environment}`, "", model.notMeasured, "");
  if (model.variantDescriptions.length > 0) {
    out.push(`Variants: ${model.variantDescriptions.join("; ")}.`, "");
  }
  return out.join("\n");
}
