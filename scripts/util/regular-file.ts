// Reading a file a user (or a target) named: a FIFO would block open() for ever and a device would
// never end, so the path is opened without blocking and read only when it is a regular file.
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from "node:fs";

/** Opens `path` without blocking; throws (code "not a regular file") unless it is one. Returns fd and size. */
function openRegular(path: string): { fd: number; size: number } {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw Object.assign(new Error(`${path}: not a regular file`), { code: "not a regular file" });
  }
  return { fd, size: st.size };
}

/**
 * The text of `path` when it is a regular file; else throws an error with code "not a regular file".
 * With maxBytes, a larger file throws (code "too large", and its size) before anything is read.
 */
export function readRegularFile(path: string, maxBytes = Number.POSITIVE_INFINITY): string {
  const { fd, size } = openRegular(path);
  try {
    if (size > maxBytes) throw Object.assign(new Error(`${path}: ${size} bytes`), { code: "too large", size });
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** The last `bytes` of `path` when it is a regular file (else throws as readRegularFile does). */
export function readRegularFileTail(path: string, bytes: number): string {
  const { fd, size } = openRegular(path);
  try {
    const n = Math.min(bytes, size);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = readSync(fd, buf, got, n - got, size - n + got);
      if (r === 0) break;
      got += r;
    }
    return buf.subarray(0, got).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
