// A seeded state folder as files: copied exactly as it is (a link stays a link, a relative link stays
// relative), listed with a digest per file (a kept template is checked against it before reuse), and
// checked for links that would let one trial's copy reach what another's, or the template, holds.
import { createHash } from "node:crypto";
import { cpSync, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { isAbsolute, join, normalize, sep } from "node:path";

/** One entry of a state folder: a file with its size and sha256, a folder, or a link with its target as written. */
export type StateEntry =
  | { path: string; kind: "file"; size: number; sha256: string }
  | { path: string; kind: "dir" }
  | { path: string; kind: "link"; target: string };

/** Copies a state folder as it is: links as links, their targets as written (never made absolute). */
export function copyState(from: string, to: string): void {
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
}

/** Every entry below `dir`, sorted by path (relative, "/"-separated), links not followed. */
export function stateEntries(dir: string): StateEntry[] {
  const out: StateEntry[] = [];
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub)).sort()) {
      const path = sub === "" ? name : `${sub}/${name}`;
      const full = join(dir, path);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) out.push({ path, kind: "link", target: readlinkSync(full) });
      else if (st.isDirectory()) {
        out.push({ path, kind: "dir" });
        walk(path);
      } else {
        const sha256 = createHash("sha256").update(readFileSync(full)).digest("hex");
        out.push({ path, kind: "file", size: st.size, sha256 });
      }
    }
  };
  walk("");
  return out;
}

/**
 * A link a copy of the state cannot keep private, as "LINK -> TARGET …" (null: none): an absolute
 * link leads every copy back to one place (the template itself, when it points inside it), and a
 * relative one that climbs out of the folder leads every copy to what lies beside it.
 */
export function sharedLink(entries: readonly StateEntry[]): string | null {
  for (const e of entries) {
    if (e.kind !== "link") continue;
    const shown = `${e.path} -> ${e.target}`;
    if (isAbsolute(e.target)) return `${shown} is absolute: every trial's copy would lead to the same place`;
    const inside = normalize(join(e.path, "..", e.target));
    if (inside === ".." || inside.startsWith(`..${sep}`)) {
      return `${shown} leads outside it: every trial's copy would share what it points at`;
    }
  }
  return null;
}

/** The first difference between a recorded listing and the folder now, as a phrase (null: the same). */
export function firstDifference(recorded: readonly StateEntry[], now: readonly StateEntry[]): string | null {
  const was = new Map(recorded.map((e) => [e.path, e]));
  const is = new Map(now.map((e) => [e.path, e]));
  for (const e of recorded) {
    const n = is.get(e.path);
    if (!n) return `${e.path}: missing`;
    if (n.kind !== e.kind) return `${e.path}: a ${n.kind}, was a ${e.kind}`;
    if (n.kind === "link" && e.kind === "link" && n.target !== e.target) {
      return `${e.path}: a link to ${n.target}, was to ${e.target}`;
    }
    if (n.kind === "file" && e.kind === "file") {
      if (n.size !== e.size) return `${e.path}: ${n.size} bytes, was ${e.size}`;
      if (n.sha256 !== e.sha256) return `${e.path}: its content changed (same size)`;
    }
  }
  for (const n of now) if (!was.has(n.path)) return `${n.path}: added`;
  return null;
}
