// Readiness signals a target prints: the bundled server's JSON ready line, or a line a user names
// with --ready-line REGEX. Pure.

/** The bundled server's ready line: {"event":"listening","url":...,"pid":...,...}. */
export interface ReadyLine {
  url: string;
  pid: number;
  /** The whole parsed line (the bundled server also reports its fixture's sequences). */
  fields: Record<string, unknown>;
}

/** Parses the bundled server's ready line; null for any other line (including a foreign server's chatter). */
export function parseReadyLine(line: string): ReadyLine | null {
  const text = line.trim();
  if (!text.startsWith("{")) return null;
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (o.event === "listening" && typeof o.url === "string" && typeof o.pid === "number") {
      return { url: o.url, pid: o.pid, fields: o };
    }
  } catch {
    // not the ready line
  }
  return null;
}

/** Splits a stream of text chunks into lines (without the newline), keeping an unfinished tail. */
export class LineSplitter {
  private rest = "";
  /** Feeds a chunk; returns the complete lines in it. A line longer than maxLine is cut, not kept forever. */
  push(chunk: string, maxLine = 65_536): string[] {
    const parts = (this.rest + chunk).split("\n");
    this.rest = (parts.pop() ?? "").slice(-maxLine);
    return parts.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  }
  /** The unfinished last line, once the stream ended. */
  flush(): string | null {
    const r = this.rest;
    this.rest = "";
    return r === "" ? null : r;
  }
}
