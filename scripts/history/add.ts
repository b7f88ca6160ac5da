// `history add`: imports earlier runs (their results.json) into the store, idempotently, so a team
// can merge the runs its CI kept as artifacts. Every file is read and checked before anything is written.
import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { commitInfo } from "../refs/commits.js";
import { readResults } from "../report/write.js";
import type { HistoryStore } from "../store/open-store.js";
import { addRun, type CommitFacts, type StoredRun } from "../store/runs.js";
import type { RunKind } from "../store/tables.js";
import { runRecord } from "./run-record.js";
import { readRunTag } from "./run-tag.js";

export interface AddOptions {
  /** For runs without a history.json: what they were (default compare) and the branch (default none). */
  kind?: RunKind;
  branch?: string | null;
  /** A repository that has the runs' commits: their parents, times and order are stored with them. */
  repo?: string | null;
}

export interface AddedRun {
  source: string;
  id: number;
  added: boolean;
  kind: RunKind;
  branch: string | null;
  base: string | null;
  head: string | null;
  excluded: string | null;
}

/** The run directory of a path given as a results.json or as the directory holding it. */
export function runDirOf(path: string): string {
  const p = resolve(path);
  try {
    if (statSync(p).isDirectory()) return p;
  } catch {
    // missing: readResults names it
  }
  return basename(p) === "results.json" || basename(p) === "results.jsonl" ? dirname(p) : p;
}

/** Reads every run first (throws ReportInputError naming a bad one), then adds them in order. */
export async function addRuns(
  store: HistoryStore,
  paths: readonly string[],
  options: AddOptions = {},
): Promise<AddedRun[]> {
  const facts = (sha: string): CommitFacts | null => (options.repo ? commitInfo(options.repo, sha) : null);
  const records: { source: string; record: StoredRun }[] = paths.map((path) => {
    const dir = runDirOf(path);
    const results = readResults(dir);
    const tag = readRunTag(dir);
    const record = runRecord(results, {
      kind: tag?.kind ?? options.kind ?? "compare",
      branch: tag?.branch ?? options.branch ?? null,
      source: resolve(dir, "results.json"),
      commitFacts: facts,
      ...(tag?.configDigest ? { configDigest: tag.configDigest } : {}),
    });
    return { source: path, record };
  });
  const out: AddedRun[] = [];
  for (const { source, record } of records) {
    const { id, added } = await addRun(store, record);
    out.push({
      source,
      id,
      added,
      kind: record.kind,
      branch: record.branch,
      base: record.baseSha,
      head: record.headSha,
      excluded: record.excluded,
    });
  }
  return out;
}
