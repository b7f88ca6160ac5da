// The report's "Targets" section: what each variant ran on (its Node version, read from the
// target's own process), how its checkout and build went when it was measured by git ref, and what
// each case moved through completion (chunks, items, bytes). Pure: results in, lines out.
import type { Results, VariantInfo } from "../results/schema.js";
import { escapeText } from "../util/escape.js";
import { maxValue, minValue } from "../util/stats.js";
import { escapeHtml, htmlTable, mdTable, mdText } from "./markup.js";

export interface TargetRow {
  variant: string;
  role: string;
  runsOn: string;
  /** "v1 = 1a2b3c4d5e6f", or "" for a variant not measured by ref. */
  ref: string;
  checkout: string;
  build: string;
}

export interface ThroughCompletionRow {
  case: string;
  /** Per variant (in variants order): "2 / 2 / 1,479,122", ranges when trials differed. */
  figures: string[];
}

export interface TargetsModel {
  rows: TargetRow[];
  byRef: boolean;
  variants: string[];
  throughCompletion: ThroughCompletionRow[];
}

const count = (n: number) => Math.round(n).toLocaleString("en-US");
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function runsOn(v: VariantInfo): string {
  const r = v.runtime;
  if (!r) return "not recorded";
  if (r.node) return `Node ${r.node}`;
  return r.exe ? `${escapeText(r.exe)} (not a Node binary)` : "not recorded (the process was gone)";
}

function timing(ms: number | null | undefined, cached: boolean | undefined): string {
  if (typeof ms !== "number") return "n/a";
  return `${seconds(ms)}${cached ? " (cached)" : ""}`;
}

/** "2" or "2–3" over the trials, with thousands separators. */
function spread(values: number[]): string {
  if (values.length === 0) return "n/a";
  const lo = minValue(values);
  const hi = maxValue(values);
  return lo === hi ? count(lo) : `${count(lo)}–${count(hi)}`;
}

export function targetsModel(results: Results): TargetsModel {
  const byRef = results.variants.some((v) => typeof v.commit === "string");
  const rows = results.variants.map(
    (v): TargetRow => ({
      variant: v.name,
      role: v.role,
      runsOn: runsOn(v),
      ref: v.commit
        ? `${escapeText(v.ref ?? "")} = ${v.commit.slice(0, 12)}${v.dirty ? " + uncommitted changes" : ""}`
        : "",
      checkout: timing(v.checkoutMs, v.checkoutCached),
      build: v.build ? timing(v.buildMs, v.buildCached) : "no --build",
    }),
  );
  const variants = results.variants.map((v) => v.name);
  const cases = [...new Set(results.latency.map((l) => l.case))];
  const throughCompletion = cases.map((c): ThroughCompletionRow => {
    const figures = variants.map((name) => {
      const ok = results.latency.filter((l) => l.case === c && l.variant === name && l.ok);
      if (ok.length === 0) return "n/a";
      return `${spread(ok.map((l) => l.chunks))} / ${spread(ok.map((l) => l.values))} / ${spread(ok.map((l) => l.bytes))}`;
    });
    return { case: c, figures };
  });
  return { rows, byRef, variants, throughCompletion };
}

const TARGETS_NOTE =
  "Runs on: the executable of the process that listened (/proc/PID/exe) and its version, seen at the variant's first start.";
const REFS_NOTE =
  " Checkout and build: how long `git worktree add` and --build took when they ran; (cached) means this run reused them.";
const THROUGH_NOTE =
  "Through completion, per case: chunks / items / bytes (Chunk frames, values in them, and their UTF-8 bytes up to the marker's frame), over the ok latency trials: one figure when every trial agreed, min–max when they differed.";

/** The section's two tables (header + rows) and their notes, for report.md and report.html alike. */
function tables(m: TargetsModel) {
  return {
    targets: {
      header: ["variant", "role", "runs on", ...(m.byRef ? ["ref", "checkout", "build"] : [])],
      rows: m.rows.map((r) => [r.variant, r.role, r.runsOn, ...(m.byRef ? [r.ref, r.checkout, r.build] : [])]),
      note: TARGETS_NOTE + (m.byRef ? REFS_NOTE : ""),
    },
    through:
      m.throughCompletion.length === 0
        ? null
        : {
            header: ["case", ...m.variants],
            rows: m.throughCompletion.map((r) => [r.case, ...r.figures]),
            note: THROUGH_NOTE,
          },
  };
}

export function targetsMarkdown(m: TargetsModel | undefined): string[] {
  if (!m || m.rows.length === 0) return [];
  const t = tables(m);
  const out = ["## Targets", "", ...mdTable(t.targets.header, t.targets.rows), "", mdText(t.targets.note), ""];
  if (t.through) out.push(t.through.note, "", ...mdTable(t.through.header, t.through.rows), "");
  return out;
}

export function targetsHtml(m: TargetsModel | undefined): string {
  if (!m || m.rows.length === 0) return "";
  const t = tables(m);
  const through = t.through
    ? `<p class="note">${escapeHtml(t.through.note)}</p>\n${htmlTable(t.through.header, t.through.rows)}`
    : "";
  return `<h2>Targets</h2>\n${htmlTable(t.targets.header, t.targets.rows)}\n<p class="note">${escapeHtml(t.targets.note)}</p>\n${through}`;
}
