// Test aid: a rendered table read back as rows keyed by column header, from report.md (a GitHub
// Markdown table) or report.html (an HTML table), so a test asserts a cell by its column's name and
// not by a whole header line that every new column would break (pure).

export interface ParsedTable {
  header: string[];
  /** One object per row, cell text by header (Markdown escapes and HTML entities undone). */
  rows: Record<string, string>[];
}

/** A Markdown cell as the reader sees it: the backslash escapes of mdText undone. */
function mdCellText(raw: string): string {
  return raw.trim().replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

/** A Markdown table line split on the `|` that are not escaped. */
function mdCells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  const cells: string[] = [];
  let cell = "";
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i] as string;
    if (ch === "\\" && i + 1 < inner.length) {
      cell += ch + inner[i + 1];
      i++;
    } else if (ch === "|") {
      cells.push(cell);
      cell = "";
    } else cell += ch;
  }
  cells.push(cell);
  return cells.map(mdCellText);
}

function keyed(header: string[], rows: string[][]): ParsedTable {
  return {
    header,
    rows: rows.map((cells) => {
      if (cells.length !== header.length) {
        throw new Error(`a row of ${cells.length} cells under ${header.length} headers: ${cells.join(" | ")}`);
      }
      return Object.fromEntries(header.map((h, i) => [h, cells[i] as string]));
    }),
  };
}

/** Every Markdown table in `text`, in order. */
export function markdownTables(text: string): ParsedTable[] {
  const lines = text.split("\n");
  const tables: ParsedTable[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!(lines[i] as string).startsWith("|") || !/^\|(\s*:?-+:?\s*\|)+$/.test(lines[i + 1] as string)) continue;
    const header = mdCells(lines[i] as string);
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && (lines[j] as string).startsWith("|"); j++) rows.push(mdCells(lines[j] as string));
    tables.push(keyed(header, rows));
    i = j - 1;
  }
  return tables;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

function htmlText(raw: string): string {
  return raw
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e)
    .trim();
}

/** Every HTML table in `html`, in order (header cells from <th>, rows from the <tr>s with <td>). */
export function htmlTables(html: string): ParsedTable[] {
  return [...html.matchAll(/<table\b[^>]*>([\s\S]*?)<\/table>/g)].map(([, body]) => {
    const rowsHtml = [...(body as string).matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([, r]) => r as string);
    const header = [...(rowsHtml[0] ?? "").matchAll(/<th>([\s\S]*?)<\/th>/g)].map(([, c]) => htmlText(c as string));
    const rows = rowsHtml
      .slice(1)
      .map((r) => [...r.matchAll(/<td>([\s\S]*?)<\/td>/g)].map(([, c]) => htmlText(c as string)));
    return keyed(header, rows);
  });
}

/**
 * The tables under the first heading that starts with `heading` (Markdown "## Latency", or HTML
 * "<h2>Latency"), up to the next heading; throws naming the heading when there is none.
 */
export function tablesUnder(text: string, heading: string): ParsedTable[] {
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`no "${heading}" in the report`);
  const html = heading.startsWith("<");
  const rest = text.slice(at + heading.length);
  const end = html ? rest.search(/<h[1-6][ >]/) : rest.search(/\n#/);
  const section = end < 0 ? rest : rest.slice(0, end);
  return html ? htmlTables(section) : markdownTables(section);
}

/**
 * The first table under `heading` that has the column `column` (any column when not given): the main
 * table rather than the small table of fixed conditions above it. Throws when there is none.
 */
export function tableUnder(text: string, heading: string, column?: string): ParsedTable {
  const table = tablesUnder(text, heading).find((t) => column === undefined || t.header.includes(column));
  if (!table) throw new Error(`no table${column ? ` with a column "${column}"` : ""} under "${heading}"`);
  return table;
}

/** The row whose `column` holds `value`; throws naming both when there is none. */
export function rowWhere(table: ParsedTable, column: string, value: string): Record<string, string> {
  if (!table.header.includes(column)) throw new Error(`no column "${column}" in ${JSON.stringify(table.header)}`);
  const row = table.rows.find((r) => r[column] === value);
  if (!row) throw new Error(`no row with ${column} = "${value}"`);
  return row;
}

/** A column's cells, top to bottom; throws naming the column and the headers there are when it is absent. */
export function columnOf(table: ParsedTable, column: string): string[] {
  if (!table.header.includes(column)) throw new Error(`no column "${column}" in ${JSON.stringify(table.header)}`);
  return table.rows.map((r) => r[column] as string);
}

/**
 * A column's values under `heading`, wherever the report put it: the main table's cells, or the one
 * value of the small table of fixed conditions (the same in every row).
 */
export function valuesUnder(text: string, heading: string, column: string): string[] {
  return columnOf(tableUnder(text, heading, column), column);
}
