// Storm rows -> the report's storm table (report.md and report.html) and chart data (server RSS and
// caught-up clients over time, one chart per variant of each cell). Pure: samples come in as data.

import { displayUnit, figureText, type JudgedMetric, metricOf } from "../results/metric-names.js";
import { FAILURE_KINDS, type StormRow } from "../results/storm-record.js";
import { isIndicative, type StormVerdict } from "../results/verdict-record.js";
import { arrow, ms, size } from "../util/format.js";
import { median } from "../util/stats.js";
import { escapeHtml, htmlTable, mdText } from "./markup.js";

export interface StormChart {
  kind: "storm";
  id: string;
  title: string;
  role: 0 | 1;
  /** x: ms since the storm began; server RSS (MiB, null where absent); caught-up clients (null where absent). */
  data: (number | null)[][];
}

type Roles = { baseline: string; candidate: string } | null;

/** Cells in first-seen order: script size × clients. */
function cellsOf(rows: readonly StormRow[]): Array<{ scriptBytes: number; clients: number; rows: StormRow[] }> {
  const cells = new Map<string, { scriptBytes: number; clients: number; rows: StormRow[] }>();
  for (const r of rows) {
    const key = `${r.scriptBytes}:${r.clients}`;
    const c = cells.get(key) ?? { scriptBytes: r.scriptBytes, clients: r.clients, rows: [] };
    c.rows.push(r);
    cells.set(key, c);
  }
  return [...cells.values()];
}

/** A row's numeric figures (a number, or null when not measured). */
type FigureKey = { [K in keyof StormRow]-?: StormRow[K] extends number | null ? K : never }[keyof StormRow];

/** The median over a variant's trials of one figure (null when none has it). */
function med(rows: readonly StormRow[], pick: (r: StormRow) => number | null): number | null {
  const xs = rows.map(pick).filter((x): x is number => x !== null);
  return xs.length ? median(xs) : null;
}

function failureText(rows: readonly StormRow[]): string {
  if (rows.length === 0) return "n/a";
  const total = Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0])) as Record<string, number>;
  for (const r of rows) for (const k of FAILURE_KINDS) total[k] = (total[k] ?? 0) + (r.failures[k] ?? 0);
  const parts = FAILURE_KINDS.filter((k) => (total[k] ?? 0) > 0).map((k) => `${total[k]} ${k}`);
  return parts.length ? parts.join(", ") : "none";
}

/** A figure's column header in the storm table: its header in the metric table and its unit ("peak RSS MiB"). */
function figureHeader(metric: JudgedMetric): string {
  return `${metricOf(metric).header} ${displayUnit(metric)}`;
}

/** The storm table: one row per cell, each figure "baseline → candidate" (one variant: its figure). */
export function stormCells(rows: readonly StormRow[], roles: Roles): { header: string[]; rows: string[][] } {
  const variants = roles
    ? [roles.baseline, roles.candidate]
    : [...new Set(rows.filter((r) => !r.aa).map((r) => r.variant))].slice(0, 1);
  const pair = (rs: StormRow[], f: (v: StormRow[]) => string) => {
    const texts = variants.map((v) => f(rs.filter((r) => r.variant === v)));
    return texts.length === 2 ? arrow(texts[0] as string, texts[1] as string) : (texts[0] ?? "n/a");
  };
  // One figure per variant: the median over its trials, shown as its metric's scale says (ms otherwise).
  const figureOf = (rs: StormRow[], metric: JudgedMetric, key: FigureKey) =>
    pair(rs, (v) =>
      figureText(
        metric,
        med(v, (r) => r[key]),
      ),
    );
  const msOf = (rs: StormRow[], key: FigureKey, digits: number) =>
    pair(rs, (v) =>
      ms(
        med(v, (r) => r[key]),
        digits,
      ),
    );
  const okText = (v: StormRow[]) => (v.length ? `${med(v, (r) => r.ok)}/${v[0]?.clients}` : "n/a");
  return {
    header: [
      "cell",
      "ok / clients",
      "failures",
      figureHeader("stormCompletionMsP50"),
      figureHeader("stormCompletionMsP99"),
      "completion max ms",
      figureHeader("stormAllCaughtUpMs"),
      figureHeader("stormPeakHeapBytes"),
      figureHeader("stormPeakRssBytes"),
      figureHeader("stormHwmRssBytes"),
      figureHeader("postGcHeapBytes"),
      figureHeader("stormProbeMaxMs"),
      "driver lag p99 ms",
    ],
    rows: cellsOf(rows).map((c) => {
      const first = c.rows[0] as StormRow;
      const ramp = first.rampMs > 0 ? `, ramp ${first.rampMs} ms` : "";
      const mix = first.resumeRatio < 1 ? `, ${Math.round(first.resumeRatio * 100)}% resume` : "";
      return [
        `${size(c.scriptBytes)} × ${c.clients}${ramp}${mix}`,
        pair(c.rows, okText),
        pair(c.rows, failureText),
        figureOf(c.rows, "stormCompletionMsP50", "completionMsP50"),
        figureOf(c.rows, "stormCompletionMsP99", "completionMsP99"),
        msOf(c.rows, "completionMsMax", 0),
        figureOf(c.rows, "stormAllCaughtUpMs", "allCaughtUpMs"),
        figureOf(c.rows, "stormPeakHeapBytes", "peakHeapBytes"),
        figureOf(c.rows, "stormPeakRssBytes", "peakRssBytes"),
        figureOf(c.rows, "stormHwmRssBytes", "hwmRssBytes"),
        figureOf(c.rows, "postGcHeapBytes", "postGcHeapBytes"),
        figureOf(c.rows, "stormProbeMaxMs", "probeMaxMs"),
        msOf(c.rows, "driverLoopLagMs", 1),
      ];
    }),
  };
}

function verdictText(v: StormVerdict): string {
  const word = v.guarded
    ? v.verdict === "fail"
      ? "FAIL"
      : v.verdict === "missing"
        ? "MISSING"
        : v.undecided
          ? "no verdict (inside the A/A band)"
          : v.verdict === "noise"
            ? "pass (within noise)"
            : "PASS"
    : v.verdict;
  return `${word}${isIndicative(v) && v.verdict !== "missing" ? " (indicative)" : ""}: ${v.reason}`;
}

/** The paired table: per cell and judged figure, the median paired ratio candidate/baseline and the verdict. */
export function stormVerdictTable(verdicts: readonly StormVerdict[]): { header: string[]; rows: string[][] } {
  return {
    header: [
      "cell",
      "figure",
      "pairs ok / planned",
      "median ratio (95% CI)",
      "A/A band",
      "verdict",
      "pairs that did not count",
    ],
    rows: verdicts.map((v) => [
      v.cell,
      `${metricOf(v.metric).header} (${v.metric})${v.guarded ? ", guarded" : ""}`,
      `${v.pairs}/${v.plannedPairs}`,
      v.median === null
        ? "n/a"
        : `${v.median.toFixed(3)}${v.ciLow !== null && v.ciHigh !== null ? ` (${v.ciLow.toFixed(3)}–${v.ciHigh.toFixed(3)})` : ""}`,
      v.aaLow !== null && v.aaHigh !== null ? `${v.aaLow.toFixed(3)}–${v.aaHigh.toFixed(3)}` : "n/a",
      verdictText(v),
      v.missing.length ? v.missing.map((m) => m.reason).join("; ") : "none",
    ]),
  };
}

export const STORM_VERDICT_NOTE =
  "Paired: trial t of the baseline with trial t of the candidate in the same cell (variants rotated per round, each on a fresh server); ratio candidate/baseline, lower is better. " +
  "A pair counts only when both storms served every client (a storm with failures carried less load); every other pair is listed. " +
  "The A/A band is the baseline against its copy run in the same rounds. Peak RSS and completion p99 are judged by default: the storm's question is the memory of N catch-ups held at once (RSS also holds frame buffers outside the JS heap), and the clients a storm hurts are its tail.";

export const STORM_NOTE =
  "Each cell: per variant a fresh server, then N clients connecting at once (or spread over the ramp), each resuming from the cursor (or taking a cold snapshot), holding the completion chunk, closing. " +
  "ok counts clients whose completion frame arrived and whose session ended cleanly; failures are classed from each session's error (upgrade refused, timeout, closed early, other). " +
  "Completion percentiles are over the ok clients' own subscribe-to-completion times; all caught up runs from the storm's start to the last completion frame (only when every client caught up), so it also holds the wait for the server to accept each upgrade, which a session's completion time (from its subscribe request) does not. " +
  "Heap and RSS are sampled from outside the server as in the memory cells; post-GC heap after every client closed. " +
  "Driver lag is the worst client worker's event-loop delay p99: when it is large, the driver, not the server, set the pace. Medians over trials.";

/** The clients' session deadline as the rows recorded it: a failure past it is a "timeout". */
export function deadlineText(rows: readonly StormRow[]): string {
  const deadlines = [...new Set(rows.map((r) => r.sessionTimeoutMs).filter((t): t is number => t !== undefined))];
  if (deadlines.length === 0) return "Session deadline: not recorded (a run before --storm-timeout-ms).";
  const text = deadlines.map((t) => `${+(t / 1000).toFixed(1)} s`).join(", ");
  return `Session deadline: ${text} from each client's connect (--storm-timeout-ms); a client still waiting then fails as a timeout.`;
}

/** The report.md section (empty without storm rows). */
export function stormMarkdown(
  rows: readonly StormRow[] | undefined,
  roles: Roles,
  verdicts: readonly StormVerdict[] = [],
): string[] {
  if (!rows || rows.length === 0) return [];
  const { header, rows: body } = stormCells(rows, roles);
  const esc = mdText;
  const out = [
    roles
      ? `## Reconnect storm: N clients at once (${esc(roles.baseline)} → ${esc(roles.candidate)})`
      : "## Reconnect storm: N clients at once",
    "",
    `| ${header.map(esc).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...body.map((r) => `| ${r.map(esc).join(" | ")} |`),
    "",
  ];
  const errors = rows
    .filter((r) => r.error)
    .map((r) => `- ${esc(r.variant)}, ${r.clients} clients: ${esc(r.error ?? "")}`);
  if (errors.length) out.push(...errors, "");
  out.push(`${STORM_NOTE} ${deadlineText(rows)}`, "");
  if (verdicts.length > 0) {
    const t = stormVerdictTable(verdicts);
    out.push(
      "### Storm cells paired across trials",
      "",
      `| ${t.header.map(esc).join(" | ")} |`,
      `|${t.header.map(() => "---").join("|")}|`,
      ...t.rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
      "",
      STORM_VERDICT_NOTE,
      "",
    );
  }
  return out;
}

/** One chart per storm row of the first trial: server RSS and caught-up clients over the storm's time. */
export function stormCharts(rows: readonly StormRow[] | undefined, baseline: string | null): StormChart[] {
  const charts: StormChart[] = [];
  for (const [i, r] of (rows ?? []).entries()) {
    if (r.trial !== 1 || r.aa || !r.timeline || r.timeline.length === 0) continue;
    charts.push({
      kind: "storm",
      id: `storm-${i}`,
      title: `${r.variant}: ${size(r.scriptBytes)} × ${r.clients} clients, server RSS and clients caught up`,
      role: baseline === null || r.variant === baseline ? 0 : 1,
      data: [r.timeline.map((p) => p[0]), r.timeline.map((p) => p[1]), r.timeline.map((p) => p[2])],
    });
  }
  return charts;
}

/** The report.html section: the table and one figure per variant and cell. */
export function stormHtml(
  rows: readonly StormRow[] | undefined,
  roles: Roles,
  verdicts: readonly StormVerdict[] = [],
): string {
  if (!rows || rows.length === 0) return "";
  const charts = stormCharts(rows, roles?.baseline ?? null);
  const { header, rows: body } = stormCells(rows, roles);
  const table = htmlTable(header, body);
  const figures = charts
    .map((c) => {
      const k = c.role === 0 ? "b" : "c";
      return `<figure><figcaption>${escapeHtml(c.title)}</figcaption><div class="chart" id="${c.id}"></div><div class="legend"><span><span class="sw dash ${k}"></span>server RSS (MiB, left)</span><span><span class="sw ${k}"></span>clients caught up (right)</span></div></figure>`;
    })
    .join("\n");
  const t = stormVerdictTable(verdicts);
  const paired =
    verdicts.length === 0
      ? ""
      : `<h3>Storm cells paired across trials</h3><table><thead><tr>${t.header.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr></thead><tbody>${t.rows
          .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`)
          .join("")}</tbody></table><p class="note">${escapeHtml(STORM_VERDICT_NOTE)}</p>`;
  return `<h2>Reconnect storm: N clients at once</h2>
${table}
${paired}
<div class="grid">${figures}</div>
<p class="note">${escapeHtml(`${STORM_NOTE} ${deadlineText(rows)}`)}</p>`;
}

/** The page code drawing a storm chart (uPlot options), inserted into the report's chart code. */
export const STORM_CHART_JS = `
    } else if (c.kind === "storm") {
      var S = c.role === 0 ? B : C;
      opts = { width: width(el), height: 280, legend: { show: false },
        scales: { x: { time: false }, y: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.1]; } },
                  n: { range: function (u, mn, mx) { return [0, (mx || 1) * 1.1]; } } },
        axes: [ { label: "ms since the storm began" }, { label: "RSS MiB", size: 60 },
                { label: "clients caught up", side: 1, scale: "n", size: 60, grid: { show: false } } ],
        series: [ { label: "ms" },
                  { label: "RSS", stroke: S, width: 1.5, dash: [8, 3], spanGaps: true, points: { show: false } },
                  { label: "caught up", stroke: S, width: 2, scale: "n", spanGaps: true, points: { show: false } } ] };`;
