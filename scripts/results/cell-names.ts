// One name per cell in everything a person reads (reports, guard lines, progress, the closing line):
// a latency case by its id ("resume-many"), a memory cell as "8 KiB × 4, resume". results.json keeps
// the ids ("8192x4/memory"). "resume" is the study's "memory" mode: a resume from the cursor.
import { size } from "../util/format.js";

/** The memory mode as a reader knows it: the study's "memory" mode is a resume from the cursor. */
export function modeName(mode: string): string {
  return mode === "memory" ? "resume" : mode;
}

/** "8 KiB × 4, resume" for a memory cell's parts. */
export function memoryCellName(c: { scriptBytes: number; clients: number; mode: string }): string {
  return `${size(c.scriptBytes)} × ${c.clients}, ${modeName(c.mode)}`;
}

/** The display name of a verdict's cell id: memory ids ("8192x4/memory") become "8 KiB × 4, resume". */
export function cellName(id: string): string {
  const m = /^(\d+)x(\d+)\/(.+)$/.exec(id);
  if (!m) return id;
  return memoryCellName({ scriptBytes: Number(m[1]), clients: Number(m[2]), mode: m[3] as string });
}

/** Said once in a report: what the mode names mean. */
export const MODE_NOTE =
  'Memory cells are named "script size × subscriptions, mode": "resume" resumes from the cursor (the reference study calls it "memory"), "snapshot" is a cold snapshot.';
