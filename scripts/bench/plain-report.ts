// A plain report.md (pure), used when the full report renderer (scripts/report) is not available.
import type { LatencyRow, MemoryRow, Results } from "../results.js";
import { median } from "../stats.js";

const mib = (b: number | null) => (b === null ? "–" : (b / 1048576).toFixed(1));
const ms = (x: number | null) => (x === null ? "–" : x.toFixed(1));

function medianOf(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? median(v) : null;
}

function latencyTable(rows: LatencyRow[], variants: string[]): string[] {
  const cases = [...new Set(rows.map((r) => r.case))];
  const head = `| case | ${variants.map((v) => `${v} median ms`).join(" | ")} | chunks ${variants.join(" → ")} | ok |`;
  const lines = [head, `|${"---|".repeat(variants.length + 3)}`];
  for (const c of cases) {
    const of = (v: string) => rows.filter((r) => r.case === c && r.variant === v && r.ok);
    const medians = variants.map((v) => ms(medianOf(of(v).map((r) => r.completionMs))));
    const chunks = variants.map((v) => medianOf(of(v).map((r) => r.chunks)) ?? "–").join(" → ");
    const okCount = rows.filter((r) => r.case === c && r.ok).length;
    const all = rows.filter((r) => r.case === c).length;
    lines.push(`| ${c} | ${medians.join(" | ")} | ${chunks} | ${okCount}/${all} |`);
  }
  return lines;
}

function memoryTable(rows: MemoryRow[], variants: string[]): string[] {
  const cells = [...new Set(rows.map((r) => `${r.scriptBytes}|${r.clients}|${r.mode}`))];
  const arrow = (pick: (r: MemoryRow) => number | null, fmt: (x: number | null) => string, cell: string) =>
    variants
      .map((v) => fmt(medianOf(rows.filter((r) => `${r.scriptBytes}|${r.clients}|${r.mode}` === cell && r.variant === v && r.ok).map(pick))))
      .join(" → ");
  const lines = [
    `| script bytes / clients / mode | peak heap MiB | peak RSS MiB | VmHWM MiB | post-GC heap MiB | retained MiB | MiB through completion | probe max ms | sample interval median ms |`,
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const cell of cells) {
    const [s, c, m] = cell.split("|");
    lines.push(
      `| ${s} B / ${c} / ${m} | ${arrow((r) => r.peakHeapBytes, mib, cell)} | ${arrow((r) => r.peakRssBytes, mib, cell)} | ${arrow((r) => r.hwmRssBytes, mib, cell)} | ${arrow((r) => r.postGcHeapBytes, mib, cell)} | ${arrow((r) => r.retainedHeapBytes, mib, cell)} | ${arrow((r) => r.bytesThroughCompletion, mib, cell)} | ${arrow((r) => r.probeMaxMs, ms, cell)} | ${arrow((r) => r.sampleIntervalMs?.median ?? null, ms, cell)} |`,
    );
  }
  return lines;
}

export function renderPlainReport(results: Results): string {
  const variants = results.variants.map((v) => v.name);
  const r = results.run;
  const out = [
    "# catchup-bench report",
    "",
    `Node ${r.node}, ${r.cpuModel} × ${r.cores}, load ${r.loadAverage.join(" ")}${r.gitCommit ? `, commit ${r.gitCommit.slice(0, 12)}` : ""}${r.interrupted ? " — interrupted, partial results" : ""}`,
    "",
  ];
  if (results.latency.length) out.push("## Latency (completion, ms)", "", ...latencyTable(results.latency, variants), "");
  if (results.memory.length) out.push("## Memory (baseline → candidate)", "", ...memoryTable(results.memory, variants), "");
  const failures = [...results.latency, ...results.memory].filter((x) => !x.ok);
  if (failures.length) {
    out.push("## Failed trials", "");
    for (const f of failures) out.push(`- ${f.variant} trial ${f.trial}: ${f.error}`);
    out.push("");
  }
  out.push("Not measured: a physical network (loopback only); anything beyond this fixture.", "");
  return out.join("\n");
}
