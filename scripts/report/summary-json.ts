// `--json`: the summary as data (pure), for a CI step to read: the verdicts and headline figures of
// every cell, the sentences, the closing line and the guard's decision. Ratios candidate/baseline.
import { cellName } from "../results/cell-names.js";
import { headlineMetrics, jsonField, LATENCY_METRICS, MEMORY_METRICS } from "../results/metric-names.js";
import type { CellVerdict } from "../results/verdict-record.js";
import type { ReportModel } from "./model.js";
import { closingLine, summaryOf } from "./summary.js";

export const SUMMARY_JSON_SCHEMA = "catchup-bench.summary/1";

interface Judged {
  pairs: number;
  ratio: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  indicative: boolean;
  /** The sign test a verdict with fewer than 8 pairs rests on, when one does. */
  signTest?: "clear" | "equivalent";
  verdict: string;
  guarded: boolean;
}

export interface SummaryJson {
  schema: typeof SUMMARY_JSON_SCHEMA;
  title: string;
  baseline: string | null;
  candidate: string | null;
  conditions: string;
  command: string | null;
  sentences: string[];
  closing: string;
  guard: { lines: string[] } | null;
  cells: Array<{ metric: string; cell: string; name: string } & Judged>;
  /** Per case, each headline latency figure's medians under its metric table's JSON field (acknowledgedMedianMs, …). */
  latency: Array<{ case: string; chunks: { baseline: number[]; candidate: number[] } } & Record<string, unknown>>;
  /** Per memory cell, each headline memory figure's medians under its JSON field (peakHeapBytes, …). */
  memory: Array<{ cell: string; name: string } & Record<string, unknown>>;
}

function judged(v: CellVerdict): Judged {
  return {
    pairs: v.pairs,
    ratio: v.median,
    ciLow: v.ciLow,
    ciHigh: v.ciHigh,
    indicative: v.indicative,
    ...(v.signTest ? { signTest: v.signTest } : {}),
    verdict: v.verdict,
    guarded: v.guarded,
  };
}

export function summaryJson(model: ReportModel): SummaryJson {
  const s = summaryOf(model);
  return {
    schema: SUMMARY_JSON_SCHEMA,
    title: s.title,
    baseline: model.roles?.baseline ?? null,
    candidate: model.roles?.candidate ?? null,
    conditions: s.conditions,
    command: s.command,
    sentences: s.sentences,
    closing: closingLine(model),
    guard: model.guardLines ? { lines: model.guardLines } : null,
    cells: model.metrics.flatMap((m) =>
      m.cells.map((v) => ({ metric: v.metric, cell: v.cell, name: cellName(v.cell), ...judged(v) })),
    ),
    latency: model.latency.map((k) => ({
      case: k.case,
      ...Object.fromEntries(headlineMetrics(LATENCY_METRICS).map((m) => [jsonField(m), k.medians[m]])),
      chunks: k.chunks,
    })),
    memory: model.memory.map((m) => ({
      cell: `${m.scriptBytes}x${m.clients}/${m.mode}`,
      name: cellName(`${m.scriptBytes}x${m.clients}/${m.mode}`),
      ...Object.fromEntries(headlineMetrics(MEMORY_METRICS).map((k) => [jsonField(k), m.medians[k]])),
    })),
  };
}
