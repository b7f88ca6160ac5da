// The summary block at the top of report.md and report.html (pure): what was compared under which
// conditions, the exact command, a headline latency table per case (both timers, each with its paired
// ratio and 95% interval), a headline memory table per cell, and one sentence per metric naming each
// verdict class. At most about 30 lines; everything else goes below it, folded.

import { cellName, memoryCellName } from "../results/cell-names.js";
import { minEffectText } from "../results/metric-floor.js";
import {
  displayUnit,
  figureText,
  floorUnitOf,
  headlineMetrics,
  LATENCY_METRICS,
  type LatencyMetric,
  MEMORY_METRICS,
  METRICS,
  type Metric,
  metricOf,
  wordingOf,
} from "../results/metric-names.js";
import { type CellVerdict, isIndicative } from "../results/verdict-record.js";
import { escapeText } from "../util/escape.js";
import { arrow, chunkSet } from "../util/format.js";
import { unanimousSignP } from "../util/stats.js";
import { MIN_PAIRS } from "../verdicts/cells.js";
import type { Conditions } from "./conditions.js";
import { escapeHtml, htmlTable, mdTable, mdText } from "./markup.js";
import type { ReportModel } from "./model.js";
import { verdictOf } from "./table-data.js";
import { detectableText, ratioWithInterval, verdictWord } from "./verdict-wording.js";

export interface SummaryTable {
  header: string[];
  rows: string[][];
}

export interface Summary {
  title: string;
  conditions: string;
  command: string | null;
  /** One sentence per headline metric, naming each verdict class and its cells. */
  sentences: string[];
  latency: SummaryTable | null;
  memory: SummaryTable | null;
}

/** "3", or "3 to 8 (sequential)" where sequential rounds could add more. */
function memoryTrialsText(planned: number, upTo: number | null): string {
  return upTo !== null && upTo > planned ? `${planned} to ${upTo} (sequential)` : String(planned);
}

function conditionsLine(c: Conditions): string {
  const parts = [
    c.variants.length > 0 ? `variants ${c.variants.join(" vs ")}` : null,
    c.fixture ? `fixture ${c.fixture}` : null,
    c.trials !== null ? `${c.trials} trial${c.trials === 1 ? "" : "s"} per latency case` : null,
    c.memoryTrials !== null ? `${memoryTrialsText(c.memoryTrials, c.memoryRoundsUpTo)} per memory cell` : null,
    c.ackDelayMs !== null ? `ACK delay ${c.ackDelayMs} ms` : null,
    c.holdMs !== null ? `hold ${c.holdMs} ms` : null,
    c.rssIntervalMs !== null
      ? `sampling RSS every ${c.rssIntervalMs} ms${c.rssThroughPs ? " through ps (pidusage)" : ""}, heap every ${c.heapIntervalMs} ms`
      : null,
    `practical floor ${minEffectText(c.minEffect, floorUnitOf)}`,
    c.configFile ? `options from ${c.configFile}` : null,
    `machine ${c.machine}`,
    `harness ${c.harness}`,
  ].filter((p): p is string => p !== null);
  return `${parts.join("; ")}.`;
}

/** The headline's latency metrics a run judged, in headline order (the acknowledged timer only where recorded). */
function headlineTimers(model: ReportModel): LatencyMetric[] {
  return headlineMetrics(LATENCY_METRICS).filter((m) => model.metrics.some((x) => x.metric === m));
}

/** Per case, each headline timer's medians with its paired ratio, the chunks and the verdict(s). */
function headlineLatencyTable(model: ReportModel): SummaryTable | null {
  const r = model.roles;
  if (!r || model.latency.length === 0) return null;
  const timers = headlineTimers(model);
  const header = [
    "case",
    ...timers.flatMap((m) => [`${metricOf(m).header}, median ${displayUnit(m)}`, "its paired ratio (95% CI)"]),
    "chunks",
    "verdict",
  ];
  const rows = model.latency.map((k) => {
    const verdicts = timers.map((m) => verdictOf(model, m, k.case));
    const words = verdicts.map(verdictWord);
    return [
      k.case,
      ...timers.flatMap((m, i) => [
        arrow(figureText(m, k.medians[m].baseline), figureText(m, k.medians[m].candidate)),
        ratioWithInterval(verdicts[i]),
      ]),
      arrow(chunkSet(k.chunks.baseline), chunkSet(k.chunks.candidate)),
      words.every((w) => w === words[0]) ? (words[0] ?? "n/a") : words.join(" / "),
    ];
  });
  return { header, rows };
}

/** "both", "three", …: how many figures a shared verdict cell speaks for. */
const HOW_MANY = ["none", "one", "both", "three", "four", "five"];

/** Per memory cell, each headline memory figure's medians, the pairs and the verdicts (one word when they agree). */
function headlineMemoryTable(model: ReportModel): SummaryTable | null {
  if (!model.roles || model.memory.length === 0) return null;
  const figures = headlineMetrics(MEMORY_METRICS);
  const header = ["cell", ...figures.map((m) => `${metricOf(m).header}, median ${displayUnit(m)}`), "pairs", "verdict"];
  const rows = model.memory.map((m) => {
    const id = `${m.scriptBytes}x${m.clients}/${m.mode}`;
    const verdicts = figures.map((metric) => ({ metric, v: verdictOf(model, metric, id) }));
    const words = verdicts.map(({ v }) => verdictWord(v));
    const same = words.every((w) => w === words[0]);
    // "noise (indicative)" three times says "noise (all three, indicative)" once.
    const all = `all ${HOW_MANY[figures.length] ?? figures.length}`;
    const verdict = same
      ? `${words[0]?.replace(/ \(indicative\)$/, "")} (${all}${words[0]?.endsWith(" (indicative)") ? ", indicative" : ""})`
      : verdicts.map(({ metric, v }) => `${wordingOf(metric).short} ${verdictWord(v)}`).join(", ");
    const pairs = verdicts[0]?.v?.pairs ?? 0;
    return [
      memoryCellName(m),
      ...figures.map((metric) =>
        arrow(figureText(metric, m.medians[metric].baseline), figureText(metric, m.medians[metric].candidate)),
      ),
      String(pairs),
      verdict,
    ];
  });
  return { header, rows };
}

/** "59–60%" of a set of ratios' distance from 1; "×1.27–1.54" past doubling. */
function sizeRange(medians: number[], lower: boolean): string {
  const pct = medians.map((m) => Math.abs(m - 1) * 100);
  const lo = Math.min(...pct);
  const hi = Math.max(...pct);
  if (!lower && hi >= 100) {
    const a = Math.min(...medians).toFixed(2);
    const b = Math.max(...medians).toFixed(2);
    return a === b ? `${a}×` : `${a}–${b}×`;
  }
  return lo.toFixed(0) === hi.toFixed(0) ? `${lo.toFixed(0)}%` : `${lo.toFixed(0)}–${hi.toFixed(0)}%`;
}

function cellList(cells: CellVerdict[], all: number, what: string): string {
  if (cells.length === all && all > 1) return `in every ${what}`;
  // A long list says its first few cells and how many more: a sentence stays a sentence.
  const names = cells.map((v) => cellName(v.cell));
  const shown = names.length > 6 ? [...names.slice(0, 5), `${names.length - 5} more`] : names;
  return `in ${shown.join(" / ")}`;
}

const SIGN_TEST_TEXT = {
  clear: (n: number) => `every ratio beyond the A/A band: sign test p ≤ ${unanimousSignP(n).toFixed(3)}`,
  equivalent: (n: number) =>
    `every ratio within the practical floor: equivalence sign tests p ≤ ${(unanimousSignP(n) / 2).toFixed(3)}`,
};

/** "6 pairs", or "6 or more pairs" when the cells differ. */
function fewestPairs(cells: CellVerdict[]): { n: number; text: string } {
  const n = Math.min(...cells.map((v) => v.pairs));
  return { n, text: cells.every((v) => v.pairs === n) ? `${n} pairs` : `${n} or more pairs` };
}

/**
 * What a class of cells with fewer than 8 pairs rests on: the sign test where sequential rounds
 * stopped them early and the verdict agrees (its p is exact at any pair count), else "indicative"
 * (the interval undercovers). Where the class also holds other cells, each part says how many.
 */
function fewPairsNote(cells: CellVerdict[]): string {
  const few = cells.filter((v) => v.indicative);
  if (few.length === 0) return "";
  const which = (part: CellVerdict[]) => (part.length < cells.length ? `${part.length} of them ` : "");
  const parts: string[] = [];
  const tested = few.filter((v) => !isIndicative(v));
  const kinds = new Set(tested.map((v) => v.signTest));
  const [kind] = kinds;
  if (tested.length > 0 && kinds.size === 1 && kind) {
    const { n, text } = fewestPairs(tested);
    parts.push(
      `${tested.length < cells.length ? `${tested.length} of them on ` : ""}${text}, ${SIGN_TEST_TEXT[kind](n)}`,
    );
  }
  // Sign-tested cells of two kinds in one class do not happen (they are different verdicts); were they
  // to, they are read as indicative rather than described wrongly.
  const hint = kinds.size === 1 ? few.filter(isIndicative) : few;
  if (hint.length > 0) {
    const { text } = fewestPairs(hint);
    // "indicative: 6 pairs": fewer than 8, so the interval undercovers.
    parts.push(`${which(hint)}indicative: ${text}`);
  }
  return ` (${parts.join("; ")})`;
}

/** Why a SAME is not ranked, for one cell: its size under the floor or its interval inside the A/A band. */
function sizes(cells: readonly CellVerdict[]): string {
  return cells.length === 1 ? ` (${cells[0]?.reason})` : "";
}

/** The smallest change UNKNOWN cells could have seen: the largest of them, "±x%". */
function couldHaveSeen(cells: readonly CellVerdict[]): string {
  const ds = cells.map((v) => v.detectable).filter((d): d is number => d !== null);
  if (ds.length === 0) return "";
  return ` (could have seen ${detectableText(Math.max(...ds), false)}${cells.length > 1 ? " at most" : ""})`;
}

/** A verdict's class in its metric's sentence: its verdict, or the kind of SAME or UNKNOWN it is. */
function sentenceClass(v: CellVerdict): string {
  if (v.verdict === "higher" && v.expected) return "expected";
  if (v.verdict === "noise" && /^interval .* inside the A\/A band/.test(v.reason) && !v.guarded) return "band-noise";
  return v.verdict;
}

/** One class of a metric's cells as its sentence says it ("DIFFERENT: 32–57% faster in every case"). */
function classPart(key: string, cells: CellVerdict[], where: string, metric: Metric): string {
  const w = wordingOf(metric);
  const medians = cells.map((v) => v.median).filter((x): x is number => x !== null);
  if (key === "lower" || key === "higher" || key === "expected") {
    const word = key === "lower" ? w.lower : w.higher;
    const expected = key === "expected" ? ", the expected effect of fewer chunks" : "";
    return `DIFFERENT: ${sizeRange(medians, key === "lower")} ${word} ${where}${expected}${fewPairsNote(cells)}`;
  }
  if (key === "no-practical-change") return `SAME: no practical change ${where}${sizes(cells)}${fewPairsNote(cells)}`;
  if (key === "band-noise")
    return `UNKNOWN: no change told from noise ${where}${sizes(cells)}${couldHaveSeen(cells)}${fewPairsNote(cells)}`;
  if (key === "noise") {
    return cells.every((v) => v.pairs < MIN_PAIRS)
      ? `UNKNOWN: too few pairs to rank ${where} (${cells[0]?.pairs ?? 0} each)`
      : `UNKNOWN: not told from noise ${where}${couldHaveSeen(cells)}${fewPairsNote(cells)}`;
  }
  if (key === "not-judged") return `UNKNOWN: not judged: floor above the baseline ${where}`;
  if (key === "too-few-pairs") return `too few pairs for the guard ${where}`;
  return `${key} ${where}`;
}

/** One sentence for a headline metric: its subject as the metric table words it, then each verdict class with its cells. */
function sentence(model: ReportModel, metric: Metric): string | null {
  const m = model.metrics.find((x) => x.metric === metric);
  const r = model.roles;
  if (!m || !r || m.cells.length === 0) return null;
  const w = wordingOf(metric);
  const classes = new Map<string, CellVerdict[]>();
  for (const v of m.cells) classes.set(sentenceClass(v), [...(classes.get(sentenceClass(v)) ?? []), v]);
  const parts = [...classes].map(([key, cells]) =>
    classPart(key, cells, cellList(cells, m.cells.length, w.cells), metric),
  );
  return `${w.subject.replace("{candidate}", r.candidate)}: ${parts.join("; ")}.`;
}

/** The summary of a run, from its report model. */
export function summaryOf(model: ReportModel): Summary {
  const r = model.roles;
  const title = r
    ? `catchup-bench: ${r.candidate} vs ${r.baseline}`
    : model.single
      ? `catchup-bench: ${model.single}`
      : "catchup-bench report";
  const c = model.conditions;
  return {
    title,
    conditions: conditionsLine(c),
    command: c.command,
    sentences: headlineMetrics(METRICS)
      .map((m) => sentence(model, m))
      .filter((x): x is string => x !== null),
    latency: headlineLatencyTable(model),
    memory: headlineMemoryTable(model),
  };
}

/**
 * A code span that holds any text inertly (a fence longer than any backtick run inside). A space pads
 * the text only where CommonMark needs one: beside a backtick at either end, or to keep a space at
 * both ends (a span strips one from each side); elsewhere the raw text reads as the command.
 */
export function inlineCode(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = "`".repeat(Math.max(0, ...runs.map((x) => x.length)) + 1);
  const body = escapeText(text);
  const pad = /^`|`$|^ .* $/.test(body) ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * The block as Markdown. Conditions and command share one paragraph (a hard line break between
 * them) so that the default run's block fits 30 lines.
 */
export function summaryMarkdown(s: Summary): string[] {
  const out = [`# ${mdText(s.title)}`, ""];
  // The conditions name the targets' own commands and names: foreign text, rendered inert.
  const conditions = mdText(s.conditions);
  out.push(s.command ? `**Conditions:** ${conditions}\\` : `**Conditions:** ${conditions}`);
  if (s.command) out.push(`**Command:** ${inlineCode(s.command)}`);
  out.push("");
  if (s.sentences.length > 0) out.push(...s.sentences.map((x) => `- ${mdText(x)}`), "");
  if (s.latency) out.push(...mdTable(s.latency.header, s.latency.rows), "");
  if (s.memory) out.push(...mdTable(s.memory.header, s.memory.rows), "");
  return out;
}

/** The block as HTML. */
export function summaryHtml(s: Summary): string {
  const table = (t: SummaryTable) => `<div class="table-scroll">${htmlTable(t.header, t.rows, "summary")}</div>`;
  return [
    '<section id="summary">',
    `<p class="conditions"><b>Conditions:</b> ${escapeHtml(s.conditions)}</p>`,
    s.command ? `<p class="command"><b>Command:</b> <code>${escapeHtml(s.command)}</code></p>` : "",
    s.sentences.length > 0
      ? `<ul class="sentences">${s.sentences.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>`
      : "",
    s.latency ? table(s.latency) : "",
    s.memory ? table(s.memory) : "",
    "</section>",
  ]
    .filter((x) => x !== "")
    .join("\n");
}

/** The cell of a metric whose median moved farthest from 1 (on the log scale). */
function farthest(model: ReportModel, metric: Metric): CellVerdict | null {
  const cells = model.metrics.find((m) => m.metric === metric)?.cells ?? [];
  let best: CellVerdict | null = null;
  for (const v of cells) {
    if (v.median === null) continue;
    if (!best || Math.abs(Math.log(v.median)) > Math.abs(Math.log(best.median as number))) best = v;
  }
  return best;
}

/**
 * The closing line, in the manner of hyperfine: the largest latency and peak-heap ratios with their
 * cells, and the guard's decision. "batched: completion 0.47× legacy (resume-many), peak heap 1.07×
 * (1 KiB × 4, resume); guard PASS".
 */
export function closingLine(model: ReportModel): string {
  const r = model.roles;
  if (!r) return model.single ? `${model.single}: a single target, nothing compared` : "nothing compared";
  const parts: string[] = [];
  const tag = (v: CellVerdict) => {
    const few = !v.indicative ? "" : v.signTest ? `, ${v.pairs} pairs, sign test` : ", indicative";
    return `${few}${v.verdict === "noise" ? ", noise" : ""}`;
  };
  // The first headline timer the run judged (the study's timer where recorded), the first headline memory figure.
  const [timer] = headlineTimers(model);
  const lat = timer ? farthest(model, timer) : null;
  if (timer && lat?.median != null) {
    parts.push(
      `${wordingOf(timer).closing} ${lat.median.toFixed(2)}× ${r.baseline} (${cellName(lat.cell)}${tag(lat)})`,
    );
  }
  const [memory] = headlineMetrics(MEMORY_METRICS);
  const heap = memory ? farthest(model, memory) : null;
  if (memory && heap?.median != null) {
    parts.push(`${wordingOf(memory).closing} ${heap.median.toFixed(2)}× (${cellName(heap.cell)}${tag(heap)})`);
  }
  const guard = model.guardLines?.at(-1);
  const word = guard ? /^guard: (PASS|FAIL|NO VERDICT)/.exec(guard)?.[1] : undefined;
  const decision = word ? `; guard ${word}` : "";
  return `${r.candidate}: ${parts.length > 0 ? parts.join(", ") : "no paired figures"}${decision}`;
}
