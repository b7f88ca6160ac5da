// Where a finished report goes, the same for `bench` and `report`: stdout carries the Markdown alone
// (or, with --json, the summary as JSON), so `report RUN > comment.md` is the comment; paths, the guard's
// lines and the closing line go to stderr; the summary block to --summary-md and $GITHUB_STEP_SUMMARY.
import { appendFileSync } from "node:fs";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { UsageError } from "../util/usage.js";

export interface Written {
  markdown: string;
  summary: string;
  json: { closing: string };
}

export interface SummaryFlags {
  json?: unknown;
  "summary-md"?: unknown;
}

/** Writes the outputs; `notes` are the stderr lines (paths, guard lines) printed before the closing line. */
export function emitReport(
  written: Written,
  flags: SummaryFlags,
  env: NodeJS.ProcessEnv,
  out: (text: string) => void,
  err: (text: string) => void,
  notes: readonly string[],
): void {
  if (flags.json === true) out(`${JSON.stringify(written.json, null, 2)}\n`);
  else out(`${written.markdown.trimEnd()}\n`);
  const block = `${written.summary.trimEnd()}\n`;
  const file = flags["summary-md"];
  if (typeof file === "string" && file !== "") {
    try {
      writeFileAtomic(file, block);
    } catch (e) {
      throw new UsageError(`--summary-md cannot be written (${file}: ${(e as NodeJS.ErrnoException).code ?? e})`);
    }
  }
  const step = env.GITHUB_STEP_SUMMARY;
  if (step) {
    try {
      appendFileSync(step, `${block}\n`);
    } catch (e) {
      err(
        `catchup-bench: cannot append to $GITHUB_STEP_SUMMARY (${step}: ${(e as NodeJS.ErrnoException).code ?? e})\n`,
      );
    }
  }
  for (const line of notes) err(`${line}\n`);
  err(`${written.json.closing}\n`);
}
