// `npm run bench:power`, the pure part: the settings (the null, and known regressions injected into
// one named cell), how each run's per-cell verdicts count (a FAIL in the named cell is a detection,
// a FAIL anywhere else a false alarm), binomial intervals for the rates, and the table.
import type { LatencyRow, MemoryRow, Results } from "../results/schema.js";
import type { CellVerdict } from "../results/verdict-record.js";
import { median } from "../util/stats.js";

/** The case a delay goes into, and the memory cell a hold goes into. */
export const NAMED_CASE = "resume-many";
export const NAMED_CELL = "1024x1/memory";
export const LATENCY_METRICS = ["completionMs"] as const;
export const MEMORY_METRICS = ["peakHeapBytes", "peakRssBytes"] as const;

export type Kind = "null" | "delay" | "hold";

/** A size as given: absolute (ms for a delay, MiB for a hold) or a percent of the null's baseline figure. */
export type SizeSpec = { absolute: number } | { percent: number };

export interface Setting {
  kind: Kind;
  /** ms (delay) or MiB (hold); null for the null. */
  size: number | null;
  /** The size as a percent of the null's baseline median in the named cell, when known. */
  percent: number | null;
  label: string;
}

/** "20" -> 20 ms / MiB, "5%" -> 5 percent; throws a one-line error naming the flag. */
export function parseSizes(flag: string, text: string): SizeSpec[] {
  const out = text
    .split(",")
    .filter((s) => s.trim() !== "")
    .map((raw) => {
      const s = raw.trim();
      const pct = s.endsWith("%");
      const n = Number(pct ? s.slice(0, -1) : s);
      if (!Number.isFinite(n) || n <= 0 || n > (pct ? 1000 : 100_000)) {
        throw new Error(
          `--${flag}: ${JSON.stringify(s)} is not a size (a number > 0, or a percent such as 5%, comma-separated)`,
        );
      }
      return pct ? { percent: n } : { absolute: n };
    });
  return out;
}

/** A size spec made absolute against the null's baseline figure (ms or MiB); null when it needs one that is missing. */
export function resolveSize(spec: SizeSpec, basis: number | null): { size: number; percent: number | null } | null {
  if ("absolute" in spec) return { size: spec.absolute, percent: basis ? (spec.absolute / basis) * 100 : null };
  if (basis === null) return null;
  return { size: (spec.percent / 100) * basis, percent: spec.percent };
}

function settingLabel(kind: Kind, size: number | null, percent: number | null): string {
  if (kind === "null") return "null (no change)";
  const pct = percent === null ? "" : ` (${percent.toFixed(1)}%)`;
  return kind === "delay"
    ? `+${size?.toFixed(1)} ms in ${NAMED_CASE}${pct}`
    : `+${size?.toFixed(2)} MiB held in ${NAMED_CELL}${pct}`;
}

/** A setting with the label the table and the progress lines show for it. */
export function settingOf(kind: Kind, size: number | null, percent: number | null): Setting {
  return { kind, size, percent, label: settingLabel(kind, size, percent) };
}

/** The baseline's median completionMs in the named case and peak heap (MiB) in the named cell of a run. */
export function baselineFigures(results: Results): { completionMs: number | null; peakHeapMib: number | null } {
  const base = results.variants[0]?.name;
  const ok = <R extends { ok: boolean; variant: string }>(rows: R[], f: (r: R) => number | null) =>
    rows
      .filter((r) => r.ok && r.variant === base)
      .map(f)
      .filter((x): x is number => typeof x === "number");
  const c = ok(
    results.latency.filter((r: LatencyRow) => r.case === NAMED_CASE),
    (r) => r.completionMs,
  );
  const h = ok(
    results.memory.filter((r: MemoryRow) => `${r.scriptBytes}x${r.clients}/${r.mode}` === NAMED_CELL),
    (r) => r.peakHeapBytes,
  );
  return {
    completionMs: c.length ? median(c) : null,
    peakHeapMib: h.length ? median(h) / 1024 / 1024 : null,
  };
}

export type Outcome = "fail" | "pass" | "no-verdict";

/** One guarded cell of one run: which setting, whether the change was injected there, what the guard said. */
export interface Observation {
  setting: string;
  kind: Kind;
  metric: string;
  cell: string;
  injected: boolean;
  outcome: Outcome;
  /** The cell's median paired ratio: what the injected change did to the figure (it need not be its size). */
  ratio: number | null;
}

function outcomeOf(v: CellVerdict): Outcome {
  if (v.verdict === "fail") return "fail";
  if (v.verdict === "missing" || v.undecided) return "no-verdict";
  return "pass";
}

/** The guarded cells of one run as observations: injected where the setting put its change. */
export function observationsOf(setting: Setting, verdicts: readonly CellVerdict[]): Observation[] {
  return verdicts
    .filter((v) => v.guarded)
    .map((v) => ({
      setting: setting.label,
      kind: setting.kind,
      metric: v.metric,
      cell: v.cell,
      injected:
        (setting.kind === "delay" &&
          v.cell === NAMED_CASE &&
          (LATENCY_METRICS as readonly string[]).includes(v.metric)) ||
        (setting.kind === "hold" && v.cell === NAMED_CELL && (MEMORY_METRICS as readonly string[]).includes(v.metric)),
      outcome: outcomeOf(v),
      ratio: v.median,
    }));
}

/** Wilson score interval (95%) for k successes of n: Wilson, E. B. (1927) JASA 22, 209–212. */
export function wilson(k: number, n: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.959964;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface PowerRow {
  metric: string;
  what: string;
  cells: number;
  fails: number;
  noVerdict: number;
  rate: number | null;
  ci: { low: number; high: number };
  /** The lowest and highest of the cells' median paired ratios, or null. */
  ratios: { low: number; high: number } | null;
}

/**
 * Per metric: the false-alarm rate (FAILs among cells where nothing was injected: every cell of the
 * null runs, and the other cells of the injected runs of that metric's matrix), then the detection
 * rate of each injected size (FAILs of the named cell).
 */
export function powerRows(observations: readonly Observation[], settings: readonly Setting[]): PowerRow[] {
  const metrics = [...LATENCY_METRICS, ...MEMORY_METRICS].filter((m) => observations.some((o) => o.metric === m));
  const row = (metric: string, what: string, obs: Observation[]): PowerRow => {
    const fails = obs.filter((o) => o.outcome === "fail").length;
    const ratios = obs.map((o) => o.ratio).filter((r): r is number => r !== null);
    return {
      metric,
      what,
      cells: obs.length,
      fails,
      noVerdict: obs.filter((o) => o.outcome === "no-verdict").length,
      rate: obs.length ? fails / obs.length : null,
      ci: wilson(fails, obs.length),
      ratios: ratios.length ? { low: Math.min(...ratios), high: Math.max(...ratios) } : null,
    };
  };
  return metrics.flatMap((metric) => {
    const mine = observations.filter((o) => o.metric === metric);
    const matching = settings.filter(
      (s) =>
        s.kind !== "null" &&
        (s.kind === "delay") === (LATENCY_METRICS as readonly string[]).includes(metric) &&
        mine.some((o) => o.setting === s.label),
    );
    return [
      row(
        metric,
        "false alarms (no change in the cell)",
        mine.filter((o) => !o.injected),
      ),
      ...matching.map((s) =>
        row(
          metric,
          `detected: ${s.label}`,
          mine.filter((o) => o.injected && o.setting === s.label),
        ),
      ),
    ];
  });
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** The Markdown table of the rows. */
export function powerTable(rows: readonly PowerRow[]): string[] {
  return [
    "| metric | cells judged | FAIL | rate (95% Wilson CI) | no verdict | median paired ratio, lowest–highest cell |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.metric}: ${r.what} | ${r.cells} | ${r.fails} | ${r.rate === null ? "n/a" : `${pct(r.rate)} (${pct(r.ci.low)}–${pct(r.ci.high)})`} | ${r.noVerdict} | ${r.ratios ? `${r.ratios.low.toFixed(3)}–${r.ratios.high.toFixed(3)}` : "n/a"} |`,
    ),
  ];
}
