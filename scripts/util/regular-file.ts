// Reading a file a user named: a FIFO would block open() for ever and a device would never end, so
// the path is opened without blocking and read only when it is a regular file.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";

/** The text of `path` when it is a regular file; else throws an error with code "not a regular file". */
export function readRegularFile(path: string): string {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile())
      throw Object.assign(new Error(`${path}: not a regular file`), { code: "not a regular file" });
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}
