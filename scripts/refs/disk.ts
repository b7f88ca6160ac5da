// Disk figures for the checkout cache: how much a directory tree takes (as du counts it: allocated
// blocks, each hard-linked file once, symlinks not followed) and how much its file system has free.
import { lstatSync, readdirSync, statfsSync } from "node:fs";
import { join } from "node:path";

/** Bytes allocated to the files under dir (0 when it does not exist). */
export function treeBytes(dir: string): number {
  const seen = new Set<string>();
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const path = stack.pop() as string;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      continue; // gone meanwhile
    }
    // pnpm and git hard-link files: count each inode once, as du does.
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) continue;
    seen.add(id);
    total += st.blocks * 512;
    if (st.isDirectory()) {
      let names: string[] = [];
      try {
        names = readdirSync(path);
      } catch {
        // unreadable: counted as its own blocks only
      }
      for (const name of names) stack.push(join(path, name));
    }
  }
  return total;
}

/** Bytes an unprivileged process may still write on the file system holding path. */
export function freeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}
