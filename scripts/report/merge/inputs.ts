// Reading the runner summaries named on the command line for `report --merge`: a file is taken as
// is; a directory contributes its summary*.json files (a runner's k6 `--out json` file beside them
// is NDJSON, not a summary). Every problem is a MergeInputError naming the path.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../../util/regular-file.js";
import { type AgentTimeline, parseAgentSamples } from "./agent-memory.js";
import { asRunnerSummary, benchRunRefusal, MergeInputError, type NamedSummary } from "./merged-report.js";

/** The summary files under the given paths, in a stable order. */
export function summaryFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let isDir: boolean;
    let isFile: boolean;
    try {
      const st = statSync(path);
      isDir = st.isDirectory();
      isFile = st.isFile();
    } catch (e) {
      throw new MergeInputError(`--merge ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!isDir) {
      // A FIFO or a device would block the read or never end: only regular files are summaries.
      if (!isFile) throw new MergeInputError(`--merge ${path}: not a regular file or a directory`);
      files.push(path);
      continue;
    }
    const found = readdirSync(path)
      .filter((f) => /^summary.*\.json$/.test(f))
      .sort()
      .map((f) => join(path, f));
    if (found.length === 0) {
      const benchRun = readdirSync(path).some((f) => f === "results.json" || f === "results.jsonl");
      throw new MergeInputError(
        benchRun ? `--merge ${benchRunRefusal(path)}` : `--merge ${path}: no summary*.json in this directory`,
      );
    }
    files.push(...found);
  }
  return files;
}

/** Reads and checks every summary. */
export function readRunnerSummaries(paths: readonly string[]): NamedSummary[] {
  return summaryFiles(paths).map((source) => {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(source, "utf8"));
    } catch (e) {
      throw new MergeInputError(`--merge ${source}: not readable JSON (${(e as Error).message})`);
    }
    return { source, summary: asRunnerSummary(source, value) };
  });
}

/** An agent's samples file in a merge directory: `catchup-bench sample --out DIR/agent….jsonl`. */
const AGENT_FILE = /^(agent|samples).*\.jsonl$/;

/** The agent samples files: those given, else the ones found in the --merge directories. */
export function agentSampleFiles(given: readonly string[] | undefined, mergePaths: readonly string[]): string[] {
  if (given && given.length > 0) return [...given];
  return mergePaths.flatMap((path) => {
    try {
      if (!statSync(path).isDirectory()) return [];
      return readdirSync(path)
        .filter((f) => AGENT_FILE.test(f))
        .sort()
        .map((f) => join(path, f));
    } catch {
      return [];
    }
  });
}

/**
 * The largest samples file read: a V8 string holds at most 512 MiB, and a file near that is days at
 * 10 ms (an hour is about 25 MiB); more is refused by name rather than as ERR_STRING_TOO_LONG.
 */
export const MAX_SAMPLES_BYTES = 400 * 1024 * 1024;

/** Reads each agent samples file into its timeline; a problem is a MergeInputError naming the file. */
export function readAgentSamples(files: readonly string[]): AgentTimeline[] {
  return files.map((file) => {
    let text: string;
    try {
      text = readRegularFile(file, MAX_SAMPLES_BYTES);
    } catch (e) {
      const { code = (e as Error).message, size } = e as NodeJS.ErrnoException & { size?: number };
      if (code === "too large") {
        throw new MergeInputError(
          `--samples ${file}: ${size} bytes, more than the ${MAX_SAMPLES_BYTES / 1048576} MiB this report reads; sample with a larger --interval-ms or for a shorter time`,
        );
      }
      throw new MergeInputError(`--samples ${file}: ${code}`);
    }
    return parseAgentSamples(file, text);
  });
}
