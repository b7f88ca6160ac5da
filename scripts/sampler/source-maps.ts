// Allocation sites in a bundled or compiled target, named by their original source: a frame whose
// script has a source map beside it (`//# sourceMappingURL=` a file, as esbuild and tsc write them)
// is mapped to the original file and line. The bundled server is one esbuild module, so without
// this every site would read "dist/server-under-test/main.js:48123". Frames without a map (Node's
// own, a target shipped without maps) keep the position the target reported. A frame's url is the
// target's to choose (vm.Script's filename): only regular files are read (never a FIFO, which would
// block, or a device such as /dev/zero, which never ends), maps up to MAX_MAP_BYTES, and any url or
// map that cannot be followed keeps the reported position.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import { readRegularFile, readRegularFileTail } from "../util/regular-file.js";
import type { FrameResolver } from "./heap-sites.js";

/** The largest source map read (the bundled server's is under 2 MiB). */
const MAX_MAP_BYTES = 64 * 1024 * 1024;

/** The map a script names on its last `sourceMappingURL` line, as a path; null without one. */
function mapPathOf(script: string): string | null {
  try {
    const m = /\/\/# sourceMappingURL=([^\s]+)\s*$/.exec(readRegularFileTail(script, 4096));
    if (!m || (m[1] as string).startsWith("data:")) return null;
    const path = resolve(dirname(script), decodeURIComponent(m[1] as string));
    return existsSync(path) ? path : null;
  } catch {
    return null; // unreadable, not a regular file, or a malformed %-escape in the map's name
  }
}

/** Resolves positions through the source maps of file:// scripts; each script is read at most once. */
export function sourceMapResolver(): FrameResolver {
  const maps = new Map<string, { map: TraceMap; dir: string } | null>();
  const mapOf = (script: string) => {
    if (!maps.has(script)) {
      const path = mapPathOf(script);
      let entry: { map: TraceMap; dir: string } | null = null;
      try {
        if (path) entry = { map: new TraceMap(readRegularFile(path, MAX_MAP_BYTES)), dir: dirname(path) };
      } catch {
        entry = null; // an unreadable or malformed map: keep the reported position
      }
      maps.set(script, entry);
    }
    return maps.get(script) ?? null;
  };
  return ({ url, line, column }) => {
    if (!url.startsWith("file://")) return null;
    try {
      // fileURLToPath throws on a url with a host or an encoded "/"; a map may hold anything.
      const entry = mapOf(fileURLToPath(url));
      if (!entry) return null;
      const o = originalPositionFor(entry.map, { line, column });
      if (o.source === null || o.line === null) return null;
      const source = /^[a-z]+:\/\//.test(o.source) ? o.source : pathToFileURL(resolve(entry.dir, o.source)).href;
      return { url: source, line: o.line };
    } catch {
      return null;
    }
  };
}
