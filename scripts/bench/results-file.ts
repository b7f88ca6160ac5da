// Results on disk. Every finished row is appended to results.jsonl at once (a crash loses at most
// the trial in progress); results.json is written whole, through a temp file and a rename, so a
// reader never sees half of it.
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type LatencyRow,
  type MemoryRow,
  RESULTS_SCHEMA,
  type Results,
  type ResultsLine,
  type RunInfo,
  type VariantInfo,
} from "../results.js";

/** Writes `data` to `path` atomically: a temp file beside it, then rename. */
export function writeFileAtomic(path: string, data: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

export class ResultsFile {
  readonly results: Results;
  readonly jsonlPath: string;
  readonly jsonPath: string;

  constructor(
    readonly runDir: string,
    run: RunInfo,
    variants: VariantInfo[],
  ) {
    mkdirSync(join(runDir, "samples"), { recursive: true });
    this.jsonlPath = join(runDir, "results.jsonl");
    this.jsonPath = join(runDir, "results.json");
    this.results = { schema: RESULTS_SCHEMA, run, variants, latency: [], memory: [] };
    writeFileSync(this.jsonlPath, "");
    this.appendLine({ kind: "run", schema: RESULTS_SCHEMA, run, variants });
  }

  private appendLine(line: ResultsLine): void {
    appendFileSync(this.jsonlPath, `${JSON.stringify(line)}\n`);
  }

  private rows(aa: boolean): { latency: LatencyRow[]; memory: MemoryRow[] } {
    if (!aa) return this.results;
    if (!this.results.aa) this.results.aa = { latency: [], memory: [] };
    return this.results.aa;
  }

  addLatency(row: LatencyRow, aa = false): void {
    this.rows(aa).latency.push(row);
    this.appendLine(aa ? { kind: "latency", aa: true, row } : { kind: "latency", row });
  }

  addMemory(row: MemoryRow, aa = false): void {
    this.rows(aa).memory.push(row);
    this.appendLine(aa ? { kind: "memory", aa: true, row } : { kind: "memory", row });
  }

  /** Writes results.json atomically with what finished so far. */
  finish(finishedAt: string, interrupted: boolean): Results {
    this.results.run.finishedAt = finishedAt;
    if (interrupted) this.results.run.interrupted = true;
    writeFileAtomic(this.jsonPath, `${JSON.stringify(this.results, null, 2)}\n`);
    return this.results;
  }
}

/** Rebuilds Results from a results.jsonl (e.g. after a crash of the harness). */
export function resultsFromJsonl(path: string): Results {
  let results: Results | null = null;
  for (const text of readFileSync(path, "utf8").split("\n")) {
    if (text.trim() === "") continue;
    const line = JSON.parse(text) as ResultsLine;
    if (line.kind === "run") {
      results = { schema: RESULTS_SCHEMA, run: line.run, variants: line.variants, latency: [], memory: [] };
    } else if (results) {
      if (line.aa && !results.aa) results.aa = { latency: [], memory: [] };
      const into = line.aa && results.aa ? results.aa : results;
      if (line.kind === "latency") into.latency.push(line.row);
      else into.memory.push(line.row);
    }
  }
  if (!results) throw new Error(`${path}: no run line`);
  return results;
}
