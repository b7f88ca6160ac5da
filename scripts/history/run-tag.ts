// history.json beside a run's results.json: what the run was for (a record against an anchor, on a
// branch), so that `history add` of a CI artifact files it where `history record` would have.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { RUN_KINDS, type RunKind } from "../store/tables.js";

const TAG_SCHEMA = "catchup-bench/history-run@1";
const TAG_FILE = "history.json";

export interface RunTag {
  kind: RunKind;
  branch: string | null;
  /** The configuration digest the record asked for (the same for all its commits), when known. */
  configDigest?: string;
}

export function writeRunTag(runDir: string, tag: RunTag): void {
  writeFileAtomic(join(runDir, TAG_FILE), `${JSON.stringify({ schema: TAG_SCHEMA, ...tag }, null, 2)}\n`);
}

/** The run's tag, or null when it has none (or one this version cannot read). */
export function readRunTag(runDir: string): RunTag | null {
  const path = join(runDir, TAG_FILE);
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    if (v.schema !== TAG_SCHEMA || !(RUN_KINDS as readonly unknown[]).includes(v.kind)) return null;
    return {
      kind: v.kind as RunKind,
      branch: typeof v.branch === "string" ? v.branch : null,
      ...(typeof v.configDigest === "string" ? { configDigest: v.configDigest } : {}),
    };
  } catch {
    return null;
  }
}
