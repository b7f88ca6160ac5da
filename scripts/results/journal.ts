// Results on disk. Every finished row is appended to results.jsonl at once (a crash loses at most
// the trial in progress); results.json is written whole, through a temp file and a rename, so a
// reader never sees half of it.
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { DiskFullError, isDiskFull } from "../../common/disk-full.js";
import { redactJson } from "../util/redact.js";
import { appendWholeLines } from "../util/whole-lines.js";
import type { AttributionRow } from "./attribution-record.js";
import { currentOwner } from "./journal-owner.js";
import type { LeakRow } from "./leak-record.js";
import {
  type LatencyRow,
  type MemoryRow,
  READABLE_RESULTS_SCHEMAS,
  RESULTS_SCHEMA,
  type Results,
  type ResultsLine,
  type RunInfo,
  type TargetCrash,
  upgradeResults,
  type VariantInfo,
} from "./schema.js";
import type { StormRow } from "./storm-record.js";

/** A run directory that already holds files: a run never writes into another run's folder. */
export class RunDirNotEmptyError extends Error {
  override readonly name = "RunDirNotEmptyError";
}

/**
 * Why `dir` cannot take a new run (it exists and is not empty), or null when it is missing or empty.
 * Two runs in one folder would mix their rows and samples, so an old run is never overwritten.
 */
export function runDirProblem(dir: string): string | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null; // missing (or not a directory: the writability check names that)
  }
  if (names.length === 0) return null;
  const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? ", …" : "");
  return `${dir} is not empty (holds ${shown}); a run never overwrites another: pick a new directory or remove this one`;
}

/**
 * A run keeps this much disk in reserve (a file in its folder, freed when it finishes or the disk
 * fills): a full disk still leaves room for the journal's last line, which says why it ends there.
 */
const RESERVE_BYTES = 4096;
/** The reserve's file in a run folder. */
const RESERVE_NAME = ".disk-reserve";

/** Frees the reserve a run killed hard (SIGKILL, power loss) left behind; call only once its owner is gone. */
export function freeDeadRunReserve(runDir: string): void {
  try {
    rmSync(join(runDir, RESERVE_NAME), { force: true });
  } catch {
    // not a file of ours (a directory of that name): leave it
  }
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
    mkdirSync(runDir, { recursive: true });
    const problem = runDirProblem(runDir);
    if (problem) throw new RunDirNotEmptyError(problem);
    this.jsonlPath = join(runDir, "results.jsonl");
    this.jsonPath = join(runDir, "results.json");
    this.results = { schema: RESULTS_SCHEMA, run, variants, latency: [], memory: [] };
    // "wx": exclusive create, so a second run started into the same folder meanwhile fails here.
    try {
      closeSync(openSync(this.jsonlPath, "wx"));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") {
        throw new RunDirNotEmptyError(`${runDir} already holds a run (results.jsonl); pick a new directory`);
      }
      throw e;
    }
    mkdirSync(join(runDir, "samples"), { recursive: true });
    this.appendLine({ kind: "run", schema: RESULTS_SCHEMA, run, variants, owner: currentOwner() });
    this.reservePath = join(runDir, RESERVE_NAME);
    try {
      writeFileSync(this.reservePath, Buffer.alloc(RESERVE_BYTES));
    } catch (e) {
      rmSync(this.reservePath, { force: true });
      if (isDiskFull(e)) throw new DiskFullError(this.reservePath);
      throw e;
    }
  }

  private readonly reservePath: string;

  /** Frees the reserve: room for the journal's last line (the reason) and results.json. */
  private release(): void {
    rmSync(this.reservePath, { force: true });
  }

  /** Trials journaled so far (every kind of row): a full disk is said as "at trial N" of them. */
  private journaledRows = 0;

  private appendLine(line: ResultsLine): void {
    // Secrets (the token, credentials in URLs) never reach the file: only their digest does.
    // A write the disk cannot take is cut back to where it began: the journal always ends on a whole line.
    try {
      appendWholeLines(this.jsonlPath, `${redactJson(line)}\n`);
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      this.release();
      throw new DiskFullError(this.jsonlPath, line.kind === "run" ? null : `at trial ${this.journaledRows + 1}`);
    }
    if (line.kind !== "run" && line.kind !== "stop") this.journaledRows++;
  }

  /** The stop line, when the disk still takes it (after a full disk it may not). */
  private appendStop(reason: string): void {
    try {
      this.appendLine({ kind: "stop", reason });
    } catch (e) {
      if (!(e instanceof DiskFullError)) throw e;
    }
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

  /** A variant's leak row (its cycles' points and slopes), kept in results.jsonl at once. */
  addLeak(row: LeakRow): void {
    this.results.leak ??= [];
    this.results.leak.push(row);
    this.appendLine({ kind: "leak", row });
  }

  /** A storm cell's row, kept in results.jsonl at once. */
  addStorm(row: StormRow): void {
    this.results.storm ??= [];
    this.results.storm.push(row);
    this.appendLine({ kind: "storm", row });
  }

  /** An --attribute row (its sites; the profile itself is a file of its own), kept in results.jsonl at once. */
  addAttribution(row: AttributionRow, intervalBytes: number): void {
    this.results.attribution ??= { intervalBytes, rows: [] };
    this.results.attribution.rows.push(row);
    this.appendLine({ kind: "attribution", intervalBytes, row });
  }

  /** Records a target that died on its own (kept in results.jsonl at once, like a row). */
  addCrash(crash: TargetCrash): void {
    this.results.targetCrashes ??= [];
    this.results.targetCrashes.push(crash);
    this.appendLine({ kind: "crash", crash });
  }

  /**
   * Writes results.json atomically with what finished so far. `stop` is why the run ended early
   * (a signal, --fail-fast, a fatal error) or null/true/false for the older boolean form.
   */
  finish(finishedAt: string, stop: string | boolean | null): Results {
    this.release();
    this.results.run.finishedAt = finishedAt;
    if (stop) {
      this.results.run.interrupted = true;
      if (typeof stop === "string") {
        this.results.run.stopReason = stop;
        this.appendStop(stop);
      }
    }
    try {
      writeFileAtomic(this.jsonPath, `${redactJson(this.results, 2)}\n`);
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      // Every row is in the journal; its last line says why results.json is missing (when it fits).
      const full = new DiskFullError(this.jsonPath, `after trial ${this.journaledRows}`);
      if (!stop) this.appendStop(full.message);
      throw full;
    }
    return this.results;
  }
}

/**
 * Rebuilds Results from a results.jsonl (e.g. after a crash of the harness). A torn last line (the
 * harness died while writing it) is skipped; a bad line elsewhere is an error naming its number.
 */
export function resultsFromJsonl(path: string): Results {
  let results: Results | null = null;
  const lines = readFileSync(path, "utf8").split("\n");
  const last = lines.findLastIndex((l) => l.trim() !== "");
  for (const [i, text] of lines.entries()) {
    if (text.trim() === "") continue;
    let line: ResultsLine;
    try {
      line = JSON.parse(text) as ResultsLine;
    } catch (e) {
      if (i === last) break;
      throw new Error(`line ${i + 1} is not JSON (${(e as Error).message})`);
    }
    if (line?.kind === "run") {
      // An older version's rows are upgraded below, as a results.json of that version would be.
      results = { schema: line.schema, run: line.run, variants: line.variants, latency: [], memory: [] };
    } else if (results && line) {
      if (line.kind === "crash") {
        results.targetCrashes ??= [];
        results.targetCrashes.push(line.crash);
        continue;
      }
      if (line.kind === "leak") {
        results.leak ??= [];
        results.leak.push(line.row);
        continue;
      }
      if (line.kind === "storm") {
        results.storm ??= [];
        results.storm.push(line.row);
        continue;
      }
      if (line.kind === "attribution") {
        results.attribution ??= { intervalBytes: line.intervalBytes, rows: [] };
        results.attribution.rows.push(line.row);
        continue;
      }
      if (line.kind === "stop") {
        results.run.interrupted = true;
        results.run.stopReason = line.reason;
        continue;
      }
      if (line.aa && !results.aa) results.aa = { latency: [], memory: [] };
      const into = line.aa && results.aa ? results.aa : results;
      if (line.kind === "latency") into.latency.push(line.row);
      else if (line.kind === "memory") into.memory.push(line.row);
    }
  }
  if (!results) throw new Error(`${path}: no run line`);
  const upgraded = upgradeResults(results as Results & Record<string, unknown>);
  if (!upgraded) {
    throw new Error(
      `its run line has schema ${JSON.stringify(results.schema)}; this version reads ${READABLE_RESULTS_SCHEMAS.join(" or ")}`,
    );
  }
  return upgraded;
}
