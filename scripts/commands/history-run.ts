// The history commands' work, callable from a program: flags in, exit code out. Each opens the store
// (--history, the config file's `history`, else the repository's .catchup-bench/history.sqlite), does
// its one thing, and prints text (or --json) on stdout.
import { appendFileSync } from "node:fs";
import { BENCH_OPTIONS } from "../options/bench.js";
import { loadConfigFile, withConfig } from "../options/config-file.js";
import { HISTORY_ADD_COMMAND, HISTORY_DETECT_COMMAND, HISTORY_TRIAGE_COMMAND } from "../options/history.js";
import { readFlags } from "../options/spec.js";
import { escapeText } from "../util/escape.js";
import { EXIT } from "../util/exit-codes.js";
import { UsageError } from "../util/usage.js";

type Raw = Record<string, unknown>;

export interface HistoryIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIO = (): HistoryIO => ({
  cwd: process.cwd(),
  env: process.env,
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
});

/** The flags as given, under them the config file's (catchup-bench.config.json or --config). */
export function withConfigFile(
  argv: Raw,
  cwd: string,
): { raw: Raw; configFile: { path: string; sha256: string } | null } {
  const loaded = loadConfigFile(BENCH_OPTIONS, argv.config as string | undefined, cwd);
  return {
    raw: loaded ? withConfig(argv, loaded.flags) : argv,
    configFile: loaded ? { path: loaded.file, sha256: loaded.sha256 } : null,
  };
}

/** Opens the store the flags name; a store that cannot be opened is a usage error naming it. */
async function openFromFlags(raw: Raw, cwd: string) {
  const [{ historyPath }, { openStore, StoreError }] = await Promise.all([
    import("../history/store-path.js"),
    import("../store/open-store.js"),
  ]);
  try {
    const path = historyPath(raw.history as string | undefined, cwd, raw.repo as string | undefined);
    return await openStore(path);
  } catch (e) {
    if (e instanceof StoreError) throw new UsageError(e.message);
    throw e;
  }
}

async function add(argv: Raw, io: HistoryIO): Promise<number> {
  const { raw } = withConfigFile(argv, io.cwd);
  const f = readFlags(HISTORY_ADD_COMMAND.options, raw);
  const paths = (Array.isArray(argv.results) ? argv.results : [argv.results]).map(String);
  const [{ addRuns }, { ReportInputError }] = await Promise.all([
    import("../history/add.js"),
    import("../report/write.js"),
  ]);
  const store = await openFromFlags(raw, io.cwd);
  try {
    const added = await addRuns(store, paths, { kind: f.kind, branch: f.branch ?? null, repo: f.repo ?? null });
    if (f.json) io.out(`${JSON.stringify({ store: store.location, runs: added }, null, 2)}\n`);
    else {
      for (const r of added) {
        const what = r.added ? `added run ${r.id}` : `already there (run ${r.id})`;
        const commits = r.head
          ? ` ${r.base?.slice(0, 12) ?? "?"} → ${r.head.slice(0, 12)}`
          : " (variants are not commits: in no series)";
        const out = r.excluded ? `; left out of series: ${r.excluded}` : "";
        io.out(
          `${escapeText(r.source)}: ${what}, ${r.kind}${r.branch ? ` on ${escapeText(r.branch)}` : ""}${commits}${out}\n`,
        );
      }
      const n = added.filter((r) => r.added).length;
      io.err(
        `history: ${n} run${n === 1 ? "" : "s"} added, ${added.length - n} already there: ${escapeText(store.location)}\n`,
      );
    }
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ReportInputError) throw new UsageError(e.message);
    throw e;
  } finally {
    await store.close();
  }
}

async function triage(argv: Raw, io: HistoryIO): Promise<number> {
  const { raw } = withConfigFile(argv, io.cwd);
  const f = readFlags(HISTORY_TRIAGE_COMMAND.options, raw);
  if (f.state === undefined) throw new UsageError("history triage needs --state (acknowledged or hidden)");
  const { triageCommit } = await import("../history/triage.js");
  const store = await openFromFlags(raw, io.cwd);
  try {
    const done = await triageCommit(store, {
      commit: String(argv.commit),
      branch: f.branch,
      state: f.state,
      note: f.note ?? null,
    });
    if (f.json) io.out(`${JSON.stringify(done, null, 2)}\n`);
    else
      io.out(
        `${done.commitSha.slice(0, 12)} on ${escapeText(done.branch)}: ${done.state} (${done.testbeds} testbed${done.testbeds === 1 ? "" : "s"})\n`,
      );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** Appends a block to $GITHUB_STEP_SUMMARY when it is set (a failure to is said, never fatal). */
function stepSummary(io: HistoryIO, block: string): void {
  const file = io.env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    appendFileSync(file, `${block.trimEnd()}\n\n`);
  } catch (e) {
    io.err(
      `catchup-bench: cannot append to $GITHUB_STEP_SUMMARY (${file}: ${(e as NodeJS.ErrnoException).code ?? e})\n`,
    );
  }
}

async function detect(argv: Raw, io: HistoryIO): Promise<number> {
  const { raw } = withConfigFile(argv, io.cwd);
  const f = readFlags(HISTORY_DETECT_COMMAND.options, raw);
  const [{ detectStore }, { alertLines, alertsMarkdown }] = await Promise.all([
    import("../history/detect.js"),
    import("../report/history-alerts.js"),
  ]);
  const store = await openFromFlags(raw, io.cwd);
  try {
    const settings = { pValue: f["p-value"], window: f.window, permutations: f.permutations };
    const d = await detectStore(store, settings, f.branch);
    if (f.json) io.out(`${JSON.stringify(detectionJson(d), null, 2)}\n`);
    else io.out(`${alertLines(d).join("\n")}\n`);
    stepSummary(io, alertsMarkdown(d));
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** --json of detect: the alerts, and per series its key, points and change points. */
function detectionJson(d: Awaited<ReturnType<typeof import("../history/detect.js").detectStore>>) {
  return {
    schema: "catchup-bench.history-detect/1",
    alerts: d.alerts,
    series: d.series.map((s) => ({
      ...s.series.key,
      unit: s.series.unit,
      anchors: s.series.anchors,
      points: s.series.points,
      changes: s.changes,
      skipped: s.skipped,
    })),
    testbeds: d.testbeds,
  };
}

const COMMANDS: Record<string, (argv: Raw, io: HistoryIO) => Promise<number>> = { add, detect, triage };

/** Runs `history NAME` with yargs' parsed flags; returns the exit code to set. */
export async function runHistoryCommand(name: string, argv: Raw, io: HistoryIO = defaultIO()): Promise<number> {
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`history ${name}: no such command`);
  return command(argv, io);
}
