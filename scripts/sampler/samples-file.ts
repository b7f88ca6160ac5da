// The sampler's JSONL file. The file is in time order, but RSS readings reach this thread in batches,
// after heap answers and marks made meanwhile. So lines wait in two queues (each already in time
// order) and go out merged, up to the time the RSS lane has reported through; one write per batch
// keeps a 1 ms lane cheap. Without a file every call is a no-op.
import { createWriteStream, mkdirSync, openSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { stampWall, wallClock } from "./wall-clock.js";

export interface SamplesFile {
  /** Queues a line of this thread (heap answer, gap, mark) at time t. */
  write(t: number, line: string): void;
  /** Queues an RSS line at time t. */
  writeRss(t: number, line: string): void;
  /** Writes out every queued line up to time upTo, merged in time order. */
  release(upTo: number): void;
  /** Ends the file (bounded: a stuck disk must not hang the run). */
  close(): Promise<void>;
  /** The first write error, as the summary states it, or null. */
  readonly error: string | null;
}

export function openSamplesFile(o: {
  file?: string;
  exclusive?: boolean;
  /** Stamp lines with wall-clock time, on a clock whose t = 0 is this performance.now() value. */
  wallOrigin: number | null;
  /** Called once, on the first write error. */
  onError: (e: NodeJS.ErrnoException, message: string) => void;
}): SamplesFile {
  let stream: WriteStream | null = null;
  if (o.file) {
    mkdirSync(dirname(o.file), { recursive: true });
    // Exclusive: opened here, so a refusal (EEXIST, ELOOP through a link) comes before any lane starts.
    stream = o.exclusive
      ? createWriteStream(o.file, { fd: openSync(o.file, "wx") })
      : createWriteStream(o.file, { flags: "w" });
  }
  let error: string | null = null;
  // A write error is reported in the summary at the end rather than thrown mid-run.
  stream?.on("error", (e: NodeJS.ErrnoException) => {
    if (error !== null) return;
    error = `samples file ${o.file}: ${e.message}`;
    o.onError(e, error);
  });
  type Line = { t: number; line: string };
  let rssLines: Line[] = [];
  let mainLines: Line[] = [];
  // Wall-clock stamps (epoch ms) for files merged with other hosts' data.
  const wall = o.wallOrigin !== null ? wallClock(o.wallOrigin) : null;
  return {
    write: (t, line) => {
      if (stream) mainLines.push({ t, line });
    },
    writeRss: (t, line) => {
      if (stream) rssLines.push({ t, line });
    },
    release: (upTo) => {
      if (!stream) return;
      wall?.sync();
      let out = "";
      let i = 0;
      let j = 0;
      for (;;) {
        const a = rssLines[i];
        const b = mainLines[j];
        const next = a && (!b || a.t <= b.t) ? a : b;
        if (!next || next.t > upTo) break;
        out += `${wall ? stampWall(next.line, wall.at(next.t)) : next.line}\n`;
        if (next === a) i++;
        else j++;
      }
      rssLines = rssLines.slice(i);
      mainLines = mainLines.slice(j);
      if (out && !error) stream.write(out);
    },
    close: async () => {
      const s = stream;
      if (!s) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 5_000); // a stuck disk must not hang the run
        s.end(() => {
          clearTimeout(t);
          resolve();
        });
      });
    },
    get error() {
      return error;
    },
  };
}
