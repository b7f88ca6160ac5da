// The merged k6 report as one HTML page (merged.html): the runners' figures as in merged.md, then,
// with agent samples, the server's memory timeline and tables. Pure: models in, a document out.
import { ms } from "../../util/format.js";
import { escapeHtml, htmlTable } from "../markup.js";
import type { MergedMemory } from "./agent-memory.js";
import { MEMORY_CSS, renderMemoryHtml } from "./agent-memory-render.js";
import { type Distribution, type MergedReport, sessionCells } from "./merged-report.js";

const CSS = `
body { font: 14px/1.4 sans-serif; margin: 2em; color: #222; max-width: 1100px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
blockquote { color: #555; border-left: 3px solid #ccc; margin: 0.5em 0; padding-left: 1em; }
${MEMORY_CSS}`;

function distRow(label: string, d: Distribution | null): string[] {
  if (!d) return [label, "0", "n/a", "n/a", "n/a", "n/a", "n/a"];
  return [label, String(d.count), ms(d.min), ms(d.median), ms(d.p90), ms(d.p95), ms(d.max)];
}

export function renderMergedHtml(
  m: MergedReport,
  memory: { model: MergedMemory; series: Parameters<typeof renderMemoryHtml>[1] } | null,
): string {
  const title = `k6 distributed run: ${m.scenario}, ${m.runners.length} runners`;
  const body: string[] = [`<h1>${escapeHtml(title)}</h1>`];
  for (const n of m.notes) body.push(`<blockquote>${escapeHtml(n)}</blockquote>`);
  body.push(
    "<h2>Totals</h2>",
    `<p>${m.sessions} sessions; ${m.totals.ran} ran (${m.totals.ok} ok, ${m.totals.failed} failed); ${m.totals.didNotRun} in no summary; ${m.totals.errors} errors counted by the runners.</p>`,
    "<h2>Distributions over the per-session rows (ms)</h2>",
    htmlTable(
      ["metric", "sessions", "min", "median", "p90", "p95", "max"],
      [distRow("completion", m.completion), distRow("probe", m.probe)],
    ),
    "<h2>Runners</h2>",
    htmlTable(
      ["runner", "sessions ran", "errors", "its own completion median (ms)"],
      m.runners.map((r) => [r.source, String(r.ran), String(r.errors), ms(r.completionMed)]),
    ),
  );
  if (memory) body.push(renderMemoryHtml(memory.model, memory.series));
  const sessions = sessionCells(m);
  body.push("<h2>Sessions</h2>", htmlTable(sessions.header, sessions.rows));
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${CSS}</style></head>\n<body>\n${body.join("\n")}\n</body></html>\n`;
}
