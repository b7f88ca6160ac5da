// Foreign text (a target's stderr, git's or a build's output) made inert for a terminal or a log line:
// control characters, line separators and bidi overrides shown as escapes.

// C0 and C1 controls, DEL, the Unicode line/paragraph separators and the bidirectional overrides
// (which can make a line read differently from what it holds).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Text from a target, made safe for one line of a terminal or a Markdown report: "\n", "\x00", "\u202e". */
export function escapeText(text: string): string {
  return text.replace(UNSAFE, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** Like escapeText but keeps line breaks (for a multi-line stderr tail printed to a terminal). */
export function escapeLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => escapeText(line))
    .join("\n");
}

/** Multi-line text (a stderr tail, an error with a stack) as one escaped line: lines joined by " | ". */
export function oneLine(text: string): string {
  return escapeText(text.trimEnd().replace(/\r?\n/g, " | "));
}
