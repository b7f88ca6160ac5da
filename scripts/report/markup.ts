// Markup primitives of every report: foreign text made inert in Markdown, HTML escaping, and the
// one Markdown table and one HTML table, every cell rendered inert (a cell can hold a variant name,
// a command, an error: foreign text, so no table writes its cells raw).
import { escapeText } from "../util/escape.js";
import type { Cells } from "./columns.js";

// Foreign text (a target's stderr and errors, a Defect's message, variant names and commands, a
// runner's path or error, anything in a hand-edited results file) made inert in Markdown (pure).
// GitHub renders report.md and merged.md: raw, `<img onerror=…>` would be HTML, `</details>` would
// close our markup, a newline would start a heading or a table row, a `|` would split a cell.

// What can open or close Markdown or HTML inline, escaped with a backslash where it would act:
// a backslash before punctuation (so the text cannot undo an escape of ours), code spans, emphasis,
// strikethrough, table cells; `<` opening a tag, comment or autolink; `&` opening an entity; `![`
// and `](` / `][` (images, links). `<=`, `a > b` and `[95% CI]` stay as they are: they do nothing.
const MARKUP = /\\(?=[!-/:-@[-`{-~])|[`*_~|]|<(?=[A-Za-z/!?])|&(?=[A-Za-z0-9#]+;)|!(?=\[)|\](?=[([])/g;

/**
 * `text` on one line (control characters, newlines, escape sequences, bidi overrides shown as `\n`,
 * `\x1b`, `\u202e`) with every Markdown/HTML construct disarmed: it renders as the characters it
 * holds, nothing more, in prose and in a table cell alike.
 */
export function mdText(text: string): string {
  const inert = escapeText(text).replace(MARKUP, (c) => `\\${c}`);
  // A heading or quote marker only acts at the start of a line.
  return /^[#>]/.test(inert) ? `\\${inert}` : inert;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A GitHub Markdown table; header and cells through mdText (which also escapes `|`). */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const line = (cells: readonly string[]) => `| ${cells.map(mdText).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)];
}

/** An HTML table; header and cells escaped. */
export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[], className = ""): string {
  const head = header.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("\n");
  const cls = className === "" ? "" : ` class="${className}"`;
  return `<table${cls}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A table's Markdown: its fixed conditions first (a small table of one row), then the table. */
export function mdCells(c: Cells): string[] {
  return [...(c.fixed ? [...mdTable(c.fixed.header, c.fixed.rows), ""] : []), ...mdTable(c.header, c.rows)];
}

/** A table's HTML: its fixed conditions first (a small table of one row), then the table. */
export function htmlCells(c: Cells, className = ""): string {
  const fixed = c.fixed ? `${htmlTable(c.fixed.header, c.fixed.rows, "fixed")}\n` : "";
  return `${fixed}${htmlTable(c.header, c.rows, className)}`;
}
