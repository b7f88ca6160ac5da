// TEST AID, not k6. `k6 archive` and running an archive, in the shape k6 uses (grafana/k6 v1.6.0 line numbers,
// lib/archive.go): a tar of metadata.json (the consolidated options, the -e environment, the
// script's URL; JSON indented by two spaces, lib/archive.go:365-376), `data` (the main script) and
// file/<absolute path> for the script and every module it imports (lib/archive.go:226-340). The
// options are the ones evaluated when the archive was made: a run of the archive uses them, not
// the script's export (internal/js/bundle.go:141-160, newBundle(..., arc.Options, false)), and its
// environment is the archive's, overlaid by the run's own (bundle.go:149-153).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const BLOCK = 512;

function octal(n, width) {
  return `${n.toString(8).padStart(width - 1, "0")}\0`;
}

/** One ustar header + body, padded to 512-byte blocks. */
function entry(name, body, type = "0") {
  if (Buffer.byteLength(name) > 100) {
    // ustar keeps longer paths in the prefix field (up to 155 bytes before the last "/").
    const cut = name.lastIndexOf("/", 155);
    return entryWithPrefix(name.slice(cut + 1), name.slice(0, cut), body, type);
  }
  return entryWithPrefix(name, "", body, type);
}

function entryWithPrefix(name, prefix, body, type) {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100);
  h.write(octal(type === "5" ? 0o755 : 0o644, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(body.length, 12), 124);
  h.write(octal(0, 12), 136);
  h.write("        ", 148);
  h.write(type, 156);
  h.write("ustar\0", 257);
  h.write("00", 263);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  const pad = Buffer.alloc((BLOCK - (body.length % BLOCK)) % BLOCK);
  return Buffer.concat([h, body, pad]);
}

/**
 * The archive's bytes.
 * @param {{ options: object, env: Record<string, string>, mainPath: string, files: string[] }} a
 */
export function writeArchive(a) {
  const metadata = {
    type: "js",
    options: a.options,
    filename: `file://${a.mainPath}`,
    pwd: `file://${dirname(a.mainPath)}/`,
    env: a.env,
    compatibilityMode: "extended",
    k6version: "k6-double",
    goos: process.platform,
  };
  const parts = [
    entry("metadata.json", Buffer.from(`${JSON.stringify(metadata, null, 2)}\n`)),
    entry("data", readFileSync(a.mainPath)),
  ];
  const dirs = new Set();
  for (const f of a.files) {
    for (let d = dirname(f); d !== "/" && d !== "."; d = dirname(d)) dirs.add(d);
  }
  for (const d of [...dirs].sort()) parts.push(entry(`file${d}`, Buffer.alloc(0), "5"));
  for (const f of [...a.files].sort()) parts.push(entry(`file${f}`, readFileSync(f)));
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** Reads an archive: its metadata and files (name -> bytes). */
export function readArchive(bytes) {
  const files = new Map();
  for (let at = 0; at + BLOCK <= bytes.length; ) {
    const h = bytes.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) break;
    const str = (from, len) => h.toString("utf8", from, from + len).replace(/\0.*$/s, "");
    const name = [str(345, 155), str(0, 100)].filter(Boolean).join("/");
    const size = Number.parseInt(str(124, 12), 8);
    const type = str(156, 1) || "0";
    at += BLOCK;
    if (type === "0") files.set(name, bytes.subarray(at, at + size));
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  const meta = files.get("metadata.json");
  if (!meta) throw new Error("k6 double: not a k6 archive (no metadata.json)");
  return { metadata: JSON.parse(meta.toString("utf8")), files };
}

/**
 * Unpacks an archive's file/ tree under `root` and returns the path of its main script there.
 * @param {{ metadata: { filename: string }, files: Map<string, Buffer> }} archive
 * @param {string} root
 */
export function unpackArchive(archive, root) {
  for (const [name, body] of archive.files) {
    if (!name.startsWith("file/")) continue;
    const path = join(root, name.slice("file".length));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, body);
  }
  return join(root, new URL(archive.metadata.filename).pathname);
}
