// The reports' one Markdown table and one HTML table, every cell rendered inert: a cell can hold a
// variant name, a command, an error (foreign text), so no table writes its cells raw.
import { mdText } from "./inert.js";

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
