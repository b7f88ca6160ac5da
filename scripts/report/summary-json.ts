// `--json`: the summary as data (pure), for a CI step to read: the verdicts and headline figures of
// every cell, the sentences, the closing line and the guard's decision. Ratios candidate/baseline.
import { cellName } from "../results/cell-names.js";
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
  latency: Array<{
    case: string;
    acknowledgedMedianMs: { baseline: number | null; candidate: number | null };
    completionMedianMs: { baseline: number | null; candidate: number | null };
    chunks: { baseline: number[]; candidate: number[] };
  }>;
  memory: Array<{
    cell: string;
    name: string;
    peakHeapBytes: { baseline: number | null; candidate: number | null };
    peakRssBytes: { baseline: number | null; candidate: number | null };
    postGcHeapBytes: { baseline: number | null; candidate: number | null };
  }>;
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
      acknowledgedMedianMs: k.acknowledgedMedianMs,
      completionMedianMs: k.completionMedianMs,
      chunks: k.chunks,
    })),
    memory: model.memory.map((m) => ({
      cell: `${m.scriptBytes}x${m.clients}/${m.mode}`,
      name: cellName(`${m.scriptBytes}x${m.clients}/${m.mode}`),
      peakHeapBytes: m.peakHeapBytes,
      peakRssBytes: m.peakRssBytes,
      postGcHeapBytes: m.postGcHeapBytes,
    })),
  };
}
