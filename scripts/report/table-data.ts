// The reports' table data, shared by report.md (markdown.ts) and report.html (html.ts): each table's
// header and cells as text, rendered inert by either (pure).

import { cellName, memoryCellName } from "../results/cell-names.js";
import {
  displayUnit,
  figureText,
  LATENCY_METRICS,
  MEMORY_METRICS,
  type Metric,
  metricOf,
} from "../results/metric-names.js";
import { type CellVerdict, isIndicative } from "../results/verdict-record.js";
import { arrow, chunkSet, mib, ms, ratio } from "../util/format.js";
import { isLatencyMetric } from "../verdicts/metrics.js";
import { attributionNote, attributionSections } from "./attribution-section.js";
import {
  type Cells,
  type Column,
  metricColumn,
  metricNote,
  pairText,
  recordedPair,
  tableNote,
  tableOf,
} from "./columns.js";
import { disturbedColumn } from "./load-section.js";
import { MAIN_TIMER, type ReportModel } from "./model.js";
import { type SplitCell, splitCells } from "./rss-split-section.js";
import { detectableText, intervalCell, ratioWithInterval, verdictText, verdictWord } from "./verdict-wording.js";

/** "0.742 (0.700–0.780)", or without an interval for a single pair (one pair has no spread). */
export function ratioCell(r: { median: number; n: number; ci: { low: number; high: number } } | null): string {
  if (!r) return "n/a";
  if (r.n === 1) return `${ratio(r.median)} (1 pair, no interval)`;
  return `${ratio(r.median)} (${ratio(r.ci.low)}–${ratio(r.ci.high)})`;
}

type LatencyCase = ReportModel["latency"][number];
type MemoryCell = ReportModel["memory"][number];

/**
 * The latency table's columns: the case, the main timer per variant with its paired ratio, every
 * other latency metric the metric table puts in the table ("baseline → candidate"), chunks, ok trials
 * and the target's CPU time (where the results record it).
 */
export function latencyColumns(model: ReportModel): Column<LatencyCase>[] {
  const r = model.roles;
  const single = !r;
  // The main timer per variant, its note said once (under the first of its columns).
  const perVariant = (name: string, side: "baseline" | "candidate"): Column<LatencyCase> => ({
    header: `${metricOf(MAIN_TIMER).header}, ${name} median`,
    cell: (c) => pairText(true, figureText(MAIN_TIMER, c.medians[MAIN_TIMER][side]), "", displayUnit(MAIN_TIMER)),
    ...(side === "baseline" ? { note: metricNote(MAIN_TIMER) } : {}),
  });
  const others = LATENCY_METRICS.filter((m) => metricOf(m).column === "pair").map((m) =>
    metricColumn(m, (c: LatencyCase) => c.medians[m], {
      single,
      header: (h) => `${h} median`,
      unit: displayUnit(m),
    }),
  );
  const cpu: Column<LatencyCase> = {
    header: "target CPU per trial (median)",
    cell: (c) => pairText(single, ms(c.targetCpuMs.baseline, 0), ms(c.targetCpuMs.candidate, 0), "ms"),
    recorded: (c) => recordedPair(c.targetCpuMs),
    outsideHeadline: true,
    note: targetCpuNote("the trial's session"),
  };
  const chunks = "Chunks: Chunk frames through the completion marker.";
  if (!r) {
    return [
      { header: "case", cell: (c) => c.case },
      perVariant(`${model.single}`, "baseline"),
      ...others,
      { header: "chunks", cell: (c) => chunkSet(c.chunks.baseline), note: chunks },
      { header: "ok trials", cell: (c) => String(c.trials.baseline), fixable: true },
      cpu,
    ];
  }
  return [
    { header: "case", cell: (c) => c.case },
    perVariant(r.baseline, "baseline"),
    perVariant(r.candidate, "candidate"),
    ...others,
    {
      header: `chunks ${r.baseline} → ${r.candidate}`,
      cell: (c) => arrow(chunkSet(c.chunks.baseline), chunkSet(c.chunks.candidate)),
      note: chunks,
    },
    {
      header: "ratio (95% CI)",
      cell: (c) => ratioCell(c.ratio),
      note: `Ratio: the median of the per-trial paired ratios of ${MAIN_TIMER} with its 95% bootstrap interval.`,
    },
    { header: "ok trials", cell: (c) => `${c.trials.baseline} / ${c.trials.candidate}`, fixable: true },
    cpu,
  ];
}

export function latencyCells(model: ReportModel, headlineOnly = false): Cells | null {
  if (model.latency.length === 0) return null;
  return tableOf(latencyColumns(model), model.latency, headlineOnly);
}

/** What the latency table's columns show, and the cases' meanings (the table names a case by its id). */
export function latencyNote(model: ReportModel, headlineOnly = false): string {
  const cases = model.latency.map((k) => (k.label === k.case ? k.case : `${k.case} (${k.label})`)).join("; ");
  return `Medians of the ok trials. ${tableNote(latencyColumns(model), model.latency, headlineOnly)} Cases: ${cases}.`;
}

/** The target's CPU time, over a latency trial's session or a memory trial's sampled window. */
const targetCpuNote = (over: string) => `Target CPU: the server's user + system CPU time over ${over}.`;

function intervalText(iv: { median: number; p99: number; max: number } | null): string {
  return iv ? `${ms(iv.median)} / ${ms(iv.p99)} / ${ms(iv.max)}` : "n/a";
}

/** The memory table's columns: the cell, ok trials, the metric table's memory figures (MiB), bytes through completion and CPU time. */
export function memoryColumns(model: ReportModel): Column<MemoryCell>[] {
  const single = Boolean(model.single);
  return [
    { header: "cell", cell: (m) => memoryCellName(m) },
    {
      header: "ok trials",
      cell: (m) => (single ? String(m.trials.baseline) : `${m.trials.baseline} / ${m.trials.candidate}`),
      fixable: true,
    },
    ...MEMORY_METRICS.filter((k) => metricOf(k).column === "pair").map((k) =>
      metricColumn(k, (m: MemoryCell) => m.medians[k], { single, header: (h) => h }),
    ),
    {
      header: "through completion",
      cell: (m) =>
        pairText(single, mib(m.bytesThroughCompletion.baseline, 2), mib(m.bytesThroughCompletion.candidate, 2)),
      outsideHeadline: true,
      note: "Through completion: bytes of the frames up to the marker.",
    },
    {
      header: "target CPU (ms)",
      cell: (m) => pairText(single, ms(m.targetCpuMs.baseline, 0), ms(m.targetCpuMs.candidate, 0)),
      outsideHeadline: true,
      note: targetCpuNote("the sampled window"),
    },
  ];
}

/** The memory figures per cell (medians of the ok trials, MiB); the sampler's health is its own table. */
export function memoryCells(model: ReportModel, headlineOnly = false): Cells | null {
  if (model.memory.length === 0 || (!model.roles && !model.single)) return null;
  return tableOf(memoryColumns(model), model.memory, headlineOnly);
}

/** What the memory table's columns show. */
export function memoryNote(model: ReportModel, headlineOnly = false): string {
  return tableNote(memoryColumns(model), model.memory, headlineOnly);
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
      "server start+stop (s)",
      "server answering (s)",
      "harness (s)",
      "writes in flight",
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
      seconds(s.seedMs),
      seconds(s.startStopMs),
      seconds(s.answeringMs),
      seconds(s.harnessMs),
      s.window === undefined ? "–" : String(s.window),
      String(Math.round(s.eventsPerSecond)),
      mib(s.templateBytes),
      `${s.cursorSequence} / ${s.latestSequence}`,
      s.cached ? "by an earlier run" : "this run",
    ]),
  };
}

/** Seconds to a tenth; "–" where an older run recorded nothing. */
const seconds = (ms: number | undefined): string => (ms === undefined ? "–" : (ms / 1000).toFixed(1));

/** What the seeding table says under it. */
export const SEED_NOTE =
  "Each variant's server was seeded once per fixture through its own API by the binding, then checked through its own snapshot subscription (projects, script bytes, sequence); every trial started on a fresh copy of that state. Seed time: from the server's start on the prepared state to its stop, the sum of the server's start and stop (to ready, and to exit), its answering (time with at least one write or the read-back awaiting its reply) and the harness (the rest: reading the fixture, the binding's own work, nothing at the server); events/s: the writes alone, with that many writes in flight at once.";

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
  const fmt = (metric: "probeMs" | "probeMaxMs", p: { baseline: number | null; candidate: number | null }) =>
    pairText(Boolean(model.single), figureText(metric, p.baseline), figureText(metric, p.candidate), "ms");
  const judged = Boolean(model.roles);
  const header = ["cell", "aggregation", metricOf("probeMs").header];
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
        fmt("probeMs", c.medians.probeMs),
        ...tail("probeMs", c.case),
      ]),
      ...model.memory.map((m) => [
        memoryCellName(m),
        "median of per-trial maxima",
        fmt("probeMaxMs", m.medians.probeMaxMs),
        ...tail("probeMaxMs", `${m.scriptBytes}x${m.clients}/${m.mode}`),
      ]),
    ],
  };
}

/** One metric's per-cell table, its title and the pooled summary line under it. */
export interface MetricTable extends Cells {
  metric: Metric;
  title: string;
  pooled: string;
}

/** A verdict as its table's row shows it, and the cell it judges. */
type VerdictRow = { v: CellVerdict; marked: CellVerdict };

/** A per-cell verdict table's columns: ratio, interval, A/A band, pairs, detectable change, disturbed rounds, verdict. */
function verdictColumns(model: ReportModel, metric: Metric, compact: boolean): Column<VerdictRow>[] {
  const disturbed = disturbedColumn(model.load, isLatencyMetric(metric) ? "latency" : "memory");
  return [
    { header: "cell", cell: ({ v }) => cellName(v.cell) },
    { header: "median paired ratio", cell: ({ v }) => (v.median === null ? "n/a" : ratio(v.median)) },
    { header: "95% CI", cell: ({ marked }) => intervalCell(marked) },
    ...(model.hasAa
      ? [
          {
            header: "A/A band",
            cell: ({ v }: VerdictRow) =>
              v.aaLow === null || v.aaHigh === null ? "n/a" : `${ratio(v.aaLow)}–${ratio(v.aaHigh)}`,
          },
        ]
      : []),
    { header: "pairs", cell: ({ v }) => `${v.pairs} / ${v.plannedPairs}` },
    { header: "smallest detectable change", cell: ({ v, marked }) => detectableText(v.detectable, marked.indicative) },
    ...(disturbed ? [{ header: disturbed.header, cell: ({ v }: VerdictRow) => disturbed.cell(v.cell) }] : []),
    { header: "verdict", cell: ({ marked }) => (compact ? verdictWord(marked) : verdictText(marked)) },
  ];
}

/** Per judged metric, its per-cell verdict table (compact: verdicts without their reasons). */
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
    const title = `${m.metric}: ${metricOf(m.metric).label}${guard ? ` — guarded: FAIL when the ${rule} exceeds ${model.guard?.ceiling}` : ""}${once}`;
    const rows = m.cells.map((v) => ({
      v,
      marked: allIndicative ? { ...v, indicative: false, signTest: undefined } : v,
    }));
    const p = m.pooled;
    const pooled = p
      ? `Pooled over all cells (a summary, never a verdict): median of ${p.n} paired ratios ${roles.candidate}/${roles.baseline} ${ratio(p.median)}${p.n > 1 ? ` (95% CI ${ratio(p.ci.low)}–${ratio(p.ci.high)})` : ""}.`
      : "Pooled over all cells: no pairs.";
    return { metric: m.metric, title, ...tableOf(verdictColumns(model, m.metric, compact), rows), pooled };
  });
}
