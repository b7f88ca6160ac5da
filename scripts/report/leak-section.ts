// Leak rows -> the report's leak table (report.md and report.html) and chart data (post-GC heap per
// cycle with the fitted Theil–Sen line, one chart per variant). Pure.

import type { LeakRow } from "../results/leak-record.js";
import { displayUnit, LEAK_METRIC, metricOf } from "../results/metric-names.js";
import { median } from "../util/stats.js";
import { escapeHtml, htmlTable, mdText } from "./markup.js";

const KIB = 1024;
const MIB = 1024 * 1024;

export interface LeakChart {
  kind: "leak";
  id: string;
  title: string;
  /** The variant; role 0 = baseline colour, 1 = candidate colour. */
  name: string;
  role: 0 | 1;
  /** x: cycle; then warm-up post-GC heap, measured post-GC heap, fitted line (MiB; null where absent). */
  data: (number | null)[][];
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function kib(bytes: number | null, digits = 1): string {
  return bytes === null ? "n/a" : (bytes / KIB).toFixed(digits);
}

/** "+64.0 [60.1, 66.3]" KiB per cycle. */
function slopeText(r: LeakRow): string {
  if (r.slopeBytesPerCycle === null) return "n/a";
  const sign = r.slopeBytesPerCycle > 0 ? "+" : "";
  return `${sign}${kib(r.slopeBytesPerCycle)} [${kib(r.ciLow)}, ${kib(r.ciHigh)}]`;
}

/** The leak table's header and rows, in results order (baseline first). */
export function leakCells(rows: readonly LeakRow[], baseline: string | null): { header: string[]; rows: string[][] } {
  return {
    header: [
      "variant",
      "cycles (warm-up)",
      "clients",
      `${metricOf(LEAK_METRIC).header} ${displayUnit(LEAK_METRIC)} [95% CI]`,
      "RSS slope KiB/cycle",
      "fd slope /cycle",
      "threshold KiB/cycle",
      "verdict",
    ],
    rows: rows.map((r) => [
      `${r.variant}${baseline === null ? "" : r.variant === baseline ? " (baseline)" : " (candidate)"}`,
      `${r.cycles} (${r.warmupCycles})`,
      String(r.clients),
      slopeText(r),
      kib(r.rssSlopeBytesPerCycle),
      r.fdSlopePerCycle === null ? "n/a" : r.fdSlopePerCycle.toFixed(2),
      kib(r.thresholdBytesPerCycle),
      r.verdict + (r.error ? ` (${r.error})` : ""),
    ]),
  };
}

/** Candidate minus baseline heap slope, as a sentence (null without both slopes). */
export function leakComparison(rows: readonly LeakRow[], baseline: string, candidate: string): string | null {
  const b = rows.find((r) => r.variant === baseline);
  const c = rows.find((r) => r.variant === candidate);
  if (b?.slopeBytesPerCycle == null || c?.slopeBytesPerCycle == null) return null;
  const d = c.slopeBytesPerCycle - b.slopeBytesPerCycle;
  return `Candidate ${candidate} minus baseline ${baseline}: ${d > 0 ? "+" : ""}${kib(d)} KiB of post-GC heap per cycle (${c.verdict} vs ${b.verdict}).`;
}

export const LEAK_NOTE =
  "Each variant ran on one server for its warm-up cycles and then the measured ones, variants interleaved cycle by cycle. " +
  "A cycle is the clients' subscribe, catch-up, hold and close; after it, two forced GCs and the post-GC heap (inspector), RSS (/proc/PID/statm) and open descriptors (/proc/PID/fd). " +
  "Slopes are Theil–Sen (the median of pairwise slopes) over the measured cycles, with Sen's distribution-free 95% interval; " +
  "the verdict is leak when the interval's lower bound exceeds the threshold, missing with fewer than 10 measured cycles. Details: docs/statistics.md.";

/** The report.md section (empty without leak rows). */
export function leakMarkdown(
  rows: readonly LeakRow[] | undefined,
  roles: { baseline: string; candidate: string } | null,
): string[] {
  if (!rows || rows.length === 0) return [];
  const { header, rows: body } = leakCells(rows, roles?.baseline ?? null);
  const esc = mdText;
  const out = [
    "## Leak: post-GC heap per reconnect cycle",
    "",
    `| ${header.map(esc).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...body.map((r) => `| ${r.map(esc).join(" | ")} |`),
    "",
  ];
  const cmp = roles ? leakComparison(rows, roles.baseline, roles.candidate) : null;
  if (cmp) out.push(esc(cmp), "");
  out.push(LEAK_NOTE, "");
  return out;
}

/** Theil–Sen intercept: the median of y - slope * x over the measured points. */
function intercept(xs: number[], ys: number[], slope: number): number {
  return median(xs.map((x, i) => (ys[i] as number) - slope * x));
}

/** One chart per leak row: post-GC heap per cycle (warm-up apart) and the fitted line over the measured cycles. */
export function leakCharts(rows: readonly LeakRow[] | undefined, baseline: string | null): LeakChart[] {
  return (rows ?? []).map((r, i) => {
    const measured = r.points.filter((p) => p.cycle > r.warmupCycles);
    const slope = r.slopeBytesPerCycle;
    const b =
      slope === null
        ? null
        : intercept(
            measured.map((p) => p.cycle),
            measured.map((p) => p.postGcHeapBytes),
            slope,
          );
    const xs = r.points.map((p) => p.cycle);
    const mib = (v: number) => round(v / MIB, 4);
    return {
      kind: "leak",
      id: `leak-${i}`,
      title: `${r.variant}: post-GC heap per cycle, slope ${slopeText(r)} KiB/cycle, ${r.verdict}`,
      name: r.variant,
      role: baseline === null || r.variant === baseline ? 0 : 1,
      data: [
        xs,
        r.points.map((p) => (p.cycle <= r.warmupCycles ? mib(p.postGcHeapBytes) : null)),
        r.points.map((p) => (p.cycle > r.warmupCycles ? mib(p.postGcHeapBytes) : null)),
        r.points.map((p) =>
          p.cycle > r.warmupCycles && slope !== null && b !== null ? mib(b + slope * p.cycle) : null,
        ),
      ],
    };
  });
}

/** The report.html section: the table and one figure per variant (drawn by the page's chart code). */
export function leakHtml(
  rows: readonly LeakRow[] | undefined,
  roles: { baseline: string; candidate: string } | null,
): string {
  if (!rows || rows.length === 0) return "";
  const { header, rows: body } = leakCells(rows, roles?.baseline ?? null);
  const table = htmlTable(header, body);
  const figures = leakCharts(rows, roles?.baseline ?? null)
    .map((c) => {
      const k = c.role === 0 ? "b" : "c";
      return `<figure><figcaption>${escapeHtml(c.title)}</figcaption><div class="chart" id="${c.id}"></div><div class="legend"><span><span class="sw dot ${k}"></span>post-GC heap</span><span><span class="sw dot"></span>warm-up (not fitted)</span><span><span class="sw dash ${k}"></span>Theil–Sen fit</span></div></figure>`;
    })
    .join("\n");
  const cmp = roles ? leakComparison(rows, roles.baseline, roles.candidate) : null;
  return `<h2>Leak: post-GC heap per reconnect cycle</h2>
${table}
${cmp ? `<p>${escapeHtml(cmp)}</p>` : ""}
<div class="grid">${figures}</div>
<p class="note">${escapeHtml(LEAK_NOTE)}</p>`;
}
