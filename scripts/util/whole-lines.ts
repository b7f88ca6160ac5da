// A JSONL file that always ends on a whole line, even when the disk fills mid-write (a short write
// then ENOSPC): an append that fails is cut back to where it began, and a file another writer left
// torn (a write stream that failed) is cut back to its last newline.
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";

/** Appends `text` (whole lines) or nothing: on a failed write the file is cut back and the error thrown. */
export function appendWholeLines(path: string, text: string): void {
  const bytes = Buffer.from(text);
  const fd = openSync(path, "a");
  const before = fstatSync(fd).size;
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
  } catch (e) {
    ftruncateSync(fd, before);
    throw e;
  } finally {
    closeSync(fd);
  }
}

/** Cuts `path` back to just after its last newline (nothing when it ends on one); returns the bytes cut. */
export function cutToLastNewline(path: string): number {
  const fd = openSync(path, "r+");
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(64 * 1024);
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const nl = chunk.subarray(0, n).lastIndexOf(10);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}
