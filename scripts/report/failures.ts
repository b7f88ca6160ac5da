// What went wrong in a run, made readable and bounded (pure): why it stopped, which targets crashed,
// the failed trials' errors grouped by kind with counts (a 1,000-client cell that failed the same
// way is one line, not 1,000), and what the failed memory trials measured before they failed.
// Every text that came from a target is escaped, so a report stays pasteable and a terminal safe.
import type { MemoryRow, Results, TargetCrash } from "../results/schema.js";
import { oneLine } from "../util/escape.js";
import { mib } from "../util/format.js";
import { mdText } from "./markup.js";

/** At most this many characters of one error kind are shown. */
export const KIND_CHARS = 240;
/** At most this many kinds are listed per failed trial (the rest are counted). */
export const KINDS_PER_TRIAL = 4;
/** At most this many failed trials are listed one by one (the rest are counted). */
export const TRIALS_LISTED = 40;
/** At most this many kinds in the run-wide table. */
export const KINDS_LISTED = 20;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Clipped in the middle: an error's head says what failed, its end (the last stderr line) why —
 * "fixture …: corrupt or truncated" must survive the clip.
 */
function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/**
 * What differs between two reports of the same failure, taken out so they group as one kind: Node's
 * inspector banner (a random ws:// URL on every start, and its help line: never the cause), a
 * non-interactive bash's job-control complaints (a server that spawns a shell: never the cause, and
 * as the last lines they would push the cause out of the clip), the ports picked per start, and the
 * private fixture copy each target got in the run's work directory.
 */
export function sameKind(text: string): string {
  return text
    .replace(/Debugger listening on ws:\/\/\S+( \| For help, see: https:\/\/nodejs\.org\/\S+)?( \| )?/g, "")
    .replace(
      /bash: (cannot set terminal process group \(\d+\): Inappropriate ioctl for device|no job control in this shell)( \| )?/g,
      "",
    )
    .replace(/; last stderr lines:( \| )*$/, "")
    .replace(/\b(port|127\.0\.0\.1:)\s?\d{2,5}\b/g, (_m, p: string) => (p === "port" ? "port N" : "127.0.0.1:N"))
    .replace(/\/\S*\/catchup-bench-\d+-[^/\s]+\/[^\s:]+\.sqlite/g, "(the target's fixture copy)")
    .replace(/: \| /g, ": ")
    .replace(/( \| )+$/, "");
}

export interface ErrorKind {
  kind: string;
  count: number;
}

/**
 * The kinds of error in one trial's error text: a memory trial joins its clients' errors as
 * "client 1: X; client 2: X; ...", so those become one kind X with a count. Kinds keep their
 * first-seen order; each is escaped and clipped.
 */
export function errorKinds(error: string): ErrorKind[] {
  const parts = error.split(/;\s+(?=client \d+: )/);
  const counts = new Map<string, number>();
  for (const part of parts) {
    const kind = clipMiddle(sameKind(oneLine(part.replace(/^client \d+: /, "").trim())), KIND_CHARS) || "failed";
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, count]) => ({ kind, count }));
}

/** "X (×999); Y" — a trial's kinds on one bounded line. */
export function kindsText(kinds: ErrorKind[]): string {
  const shown = kinds.slice(0, KINDS_PER_TRIAL).map((k) => (k.count > 1 ? `${k.kind} (×${k.count})` : k.kind));
  const more = kinds.length - KINDS_PER_TRIAL;
  if (more > 0) shown.push(`and ${more} more kind${more === 1 ? "" : "s"}`);
  return shown.join("; ");
}

export interface FailedTrial {
  what: string;
  kinds: ErrorKind[];
}

/** A failed memory trial's figures, measured up to the moment it failed. */
export interface PartialMemory {
  what: string;
  peakHeapBytes: number | null;
  peakRssBytes: number | null;
  hwmRssBytes: number | null;
  bytesThroughCompletion: number | null;
  samplesFile: string | null;
}

export interface FailureReport {
  /** Why the run stopped early (escaped), or null when it ran its plan. */
  stopReason: string | null;
  crashes: TargetCrash[];
  /** Run-wide: each kind, how often it occurred, and in how many trials. */
  kinds: (ErrorKind & { trials: number })[];
  trials: FailedTrial[];
  /** Failed trials not listed one by one. */
  omittedTrials: number;
  partialMemory: PartialMemory[];
}

function memoryWhat(prefix: string, r: MemoryRow): string {
  return `${prefix}memory ${r.scriptBytes} B x ${r.clients} ${r.mode} ${r.variant} trial ${r.trial}`;
}

const measuredSomething = (r: MemoryRow) =>
  [r.peakHeapBytes, r.peakRssBytes, r.hwmRssBytes].some((v) => typeof v === "number" && v > 0);

/** Everything that went wrong in a run, grouped and bounded. */
export function failureReport(results: Results): FailureReport {
  const trials: FailedTrial[] = [];
  const partialMemory: PartialMemory[] = [];
  const add = (prefix: string, rows: { latency: Results["latency"]; memory: Results["memory"] }) => {
    for (const r of rows.latency) {
      if (!r.ok) {
        trials.push({
          what: `${prefix}${r.case} ${r.variant} trial ${r.trial}`,
          kinds: errorKinds(r.error ?? "failed"),
        });
      }
    }
    for (const r of rows.memory) {
      if (r.ok) continue;
      const what = memoryWhat(prefix, r);
      trials.push({ what, kinds: errorKinds(r.error ?? "failed") });
      if (measuredSomething(r)) {
        partialMemory.push({
          what,
          peakHeapBytes: r.peakHeapBytes,
          peakRssBytes: r.peakRssBytes,
          hwmRssBytes: r.hwmRssBytes,
          bytesThroughCompletion: r.bytesThroughCompletion,
          samplesFile: r.samplesFile,
        });
      }
    }
  };
  add("", results);
  if (results.aa) add("A/A ", results.aa);
  const total = new Map<string, { count: number; trials: number }>();
  for (const t of trials) {
    for (const k of t.kinds) {
      const e = total.get(k.kind) ?? { count: 0, trials: 0 };
      e.count += k.count;
      e.trials += 1;
      total.set(k.kind, e);
    }
  }
  const kinds = [...total]
    .map(([kind, e]) => ({ kind, ...e }))
    .sort((a, b) => b.trials - a.trials || b.count - a.count)
    .slice(0, KINDS_LISTED);
  const stop = results.run.stopReason ?? (results.run.interrupted ? "interrupted (no reason recorded)" : null);
  return {
    stopReason: stop === null ? null : clip(oneLine(stop), 2 * KIND_CHARS),
    crashes: (results.targetCrashes ?? []).map((c) => ({
      ...c,
      variant: oneLine(c.variant),
      during: oneLine(c.during),
      stderrTail: clip(oneLine(c.stderrTail), 2 * KIND_CHARS),
      affects: c.affects.map(oneLine),
    })),
    kinds,
    trials: trials.slice(0, TRIALS_LISTED),
    omittedTrials: Math.max(0, trials.length - TRIALS_LISTED),
    partialMemory,
  };
}

/** "exit code 3" or "signal SIGKILL". */
export function exitText(c: Pick<TargetCrash, "code" | "signal">): string {
  return c.signal ? `signal ${c.signal}` : `exit code ${c.code}`;
}

/** One line per crash: who, when, how, what it affected, its last stderr. */
export function crashLine(c: TargetCrash): string {
  const affects = c.affects.length > 0 ? `; affects ${c.affects.join(", ")}` : "";
  const tail = c.stderrTail ? `; last stderr: ${c.stderrTail}` : "; no stderr output";
  return `${c.aa ? "A/A " : ""}${c.matrix} target ${c.variant} died (${exitText(c)}) at ${c.at}, ${c.during}${affects}${tail}`;
}

/** The report.md sections for a run's failures (empty when nothing went wrong). */
export function failuresMarkdown(f: FailureReport): string[] {
  const out: string[] = [];
  if (f.stopReason !== null)
    out.push("## Stopped early", "", `The run stopped before its plan finished: ${mdText(f.stopReason)}`, "");
  if (f.crashes.length > 0) {
    out.push("## Target crashes", "");
    out.push(
      "A target died on its own during the run. Its trials are failed or flagged; read the figures with that in mind.",
      "",
    );
    for (const c of f.crashes) out.push(`- ${mdText(crashLine(c))}`);
    out.push("");
  }
  if (f.trials.length > 0) {
    out.push("## Failed trials", "");
    if (f.kinds.length > 0) {
      out.push("| error | occurrences | trials |", "|---|---|---|");
      for (const k of f.kinds) out.push(`| ${mdText(k.kind)} | ${k.count} | ${k.trials} |`);
      out.push("");
    }
    for (const t of f.trials) out.push(`- ${mdText(`${t.what}: ${kindsText(t.kinds)}`)}`);
    if (f.omittedTrials > 0) out.push(`- … and ${f.omittedTrials} more failed trials (every error is in results.json)`);
    out.push("");
  }
  if (f.partialMemory.length > 0) {
    out.push("## Measured before the failure (failed memory trials, MiB)", "");
    out.push(
      "These trials failed, so they are not in the tables above; these are the figures sampled up to the failure.",
      "",
    );
    out.push("| trial | peak heap | peak RSS | kernel peak RSS (VmHWM) | MiB through completion | samples |");
    out.push("|---|---|---|---|---|---|");
    for (const p of f.partialMemory) {
      out.push(
        `| ${mdText(p.what)} | ${mib(p.peakHeapBytes)} | ${mib(p.peakRssBytes)} | ${mib(p.hwmRssBytes)} | ${mib(p.bytesThroughCompletion)} | ${mdText(p.samplesFile ?? "n/a")} |`,
      );
    }
    out.push("");
  }
  return out;
}
