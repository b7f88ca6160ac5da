// The reports' table data, shared by report.md (markdown.ts) and report.html (html.ts): each table's
// header and cells as text, rendered inert by either (pure).

import { cellName, memoryCellName } from "../results/cell-names.js";
import type { Metric } from "../results/metric-names.js";
import { type CellVerdict, isIndicative } from "../results/verdict-record.js";
import { arrow, chunkSet, mib, ms, ratio } from "../util/format.js";
import { isLatencyMetric } from "../verdicts/metrics.js";
import { attributionNote, attributionSections } from "./attribution-section.js";
import { withDisturbedColumn } from "./load-section.js";
import type { ReportModel } from "./model.js";
import { type SplitCell, splitCells } from "./rss-split-section.js";
import { detectableText, intervalCell, ratioWithInterval, verdictText, verdictWord } from "./verdict-wording.js";

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

/** --attribute's sites per cell, baseline → candidate (or the single target's own). */
export function attributionOf(model: ReportModel) {
  const names = model.roles ?? (model.single ? { baseline: model.single, candidate: model.single } : null);
  if (!model.attribution || !names || model.attribution.rows.length === 0) return null;
  return {
    sections: attributionSections(model.attribution, model.memory, names),
    note: attributionNote(model.attribution),
  };
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

/** The load phase: each variant's seed per fixture (--binding). */
export function seedCells(model: ReportModel): Cells | null {
  if (model.seeds.length === 0) return null;
  return {
    header: [
      "variant",
      "fixture",
      "binding",
      "events written",
      "seed time (s)",
      "events/s",
      "template (MiB)",
      "cursor / latest",
      "template made",
    ],
    rows: model.seeds.map((s) => [
      s.variant,
      s.fixture,
      s.binding,
      String(s.events),
      (s.seedMs / 1000).toFixed(1),
      String(Math.round(s.eventsPerSecond)),
      mib(s.templateBytes),
      `${s.cursorSequence} / ${s.latestSequence}`,
      s.cached ? "by an earlier run" : "this run",
    ]),
  };
}

/** What the seeding table says under it. */
export const SEED_NOTE =
  "Each variant's server was seeded once per fixture through its own API by the binding, then checked through its own snapshot subscription (projects, script bytes, sequence); every trial started on a fresh copy of that state. Seed time: from the server's start on the prepared state to its stop; events/s: the writes alone.";

/** A metric's verdict in one cell, if judged. */
export function verdictOf(model: ReportModel, metric: Metric, cell: string): CellVerdict | undefined {
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
