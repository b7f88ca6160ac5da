// The history commands' work, callable from a program: flags in, exit code out. Each opens the store
// (--history, the config file's `history`, else the repository's .catchup-bench/history.sqlite), does
// its one thing, and prints text (or --json) on stdout.
import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { BENCH_OPTIONS } from "../options/bench.js";
import { loadConfigFile, withConfig } from "../options/config-file.js";
import {
  HISTORY_ADD_COMMAND,
  HISTORY_DETECT_COMMAND,
  HISTORY_PAGE_COMMAND,
  HISTORY_RECORD_COMMAND,
  HISTORY_REGRESSIONS_COMMAND,
  HISTORY_TRIAGE_COMMAND,
} from "../options/history.js";
import { resolveConfig } from "../options/resolve-config.js";
import { readFlags } from "../options/spec.js";
import { causeOf, isStoreFailure } from "../store/store-failure.js";
import { escapeText } from "../util/escape.js";
import { EXIT, signalExitCode } from "../util/exit-codes.js";
import { redactStream, registerSecret } from "../util/redact.js";
import { UsageError } from "../util/usage.js";

type Raw = Record<string, unknown>;

export interface HistoryIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
}

export const defaultIO = (): HistoryIO => ({
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
export async function openFromFlags(raw: Raw, cwd: string) {
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

/**
 * A store that fails mid-command (its server gone, a file locked past the wait) ends the command in
 * one line, exit 3: the driver's error is the store's, not a fault of the harness to show as a stack.
 */
export async function storeFailures(work: () => Promise<number>, io: HistoryIO = defaultIO()): Promise<number> {
  try {
    return await work();
  } catch (e) {
    if (!isStoreFailure(e)) throw e;
    // Loaded already: only an opened store's driver raises a store failure.
    const { lastOpenedStore } = await import("../store/open-store.js");
    const store = lastOpenedStore();
    const named = store === null ? "the history store" : `the history store ${escapeText(store)}`;
    io.err(`catchup-bench: ${named} failed: ${escapeText(causeOf(e))}; no result\n`);
    return EXIT.noResult;
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

/** The package root (dist/scripts/commands/ -> ../../..): the harness's version and commit. */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** What the measuring commands share: the repository, the branch, and bench's config of a pair. */
export async function measureContext(
  raw: Raw,
  configFile: { path: string; sha256: string } | null,
  branchFlag: string | undefined,
  io: HistoryIO,
) {
  const { repositoryRoot, currentBranch } = await import("../refs/commits.js");
  const repo = raw.repo === undefined ? repositoryRoot(io.cwd) : resolve(io.cwd, String(raw.repo));
  if (repo === null) throw new UsageError("the working directory is not in a git repository: give --repo");
  const configFor = (base: string, head: string, out: string, pairs?: number) =>
    resolveConfig(
      { ...raw, repo, ref: [`anchor=${base}`, `head=${head}`], out, ...(pairs === undefined ? {} : { trials: pairs }) },
      io.env,
      configFile,
    );
  // The flags are checked before anything is checked out: a bad one is a usage error up front.
  const probe = configFor("BASE", "HEAD", "OUT");
  if (probe.protocol.token !== DEV_TOKEN) registerSecret(probe.protocol.token);
  for (const value of Object.values(probe.protocol.headers)) registerSecret(value);
  redactStream(process.stdout);
  redactStream(process.stderr);
  return {
    repo,
    branch: branchFlag ?? currentBranch(repo) ?? "main",
    configFor,
    cwd: io.cwd,
    bench: {
      root: ROOT,
      cwd: io.cwd,
      stdout: process.stdout,
      handleSignals: true,
      log: (line: string) => io.err(`${line}\n`),
      argv: process.argv.slice(2),
    },
  };
}

/** A revision that does not resolve is a usage error; a failed build or git call exits as bench's would. */
export async function refsErrors<T>(work: () => Promise<T>, io: HistoryIO): Promise<T | number> {
  const [{ refsExitCode }, { RefsError }] = await Promise.all([
    import("../bench/run/ref-targets.js"),
    import("../refs/git.js"),
  ]);
  try {
    return await work();
  } catch (e) {
    if (e instanceof RefsError && /no such commit/.test(e.message)) throw new UsageError(e.message);
    const code = refsExitCode(e);
    if (code === null) throw e;
    io.err(`catchup-bench: ${escapeText((e as Error).message)}\n`);
    return code;
  }
}

const short = (sha: string) => sha.slice(0, 12);

async function record(argv: Raw, io: HistoryIO): Promise<number> {
  const { raw, configFile } = withConfigFile(argv, io.cwd);
  const f = readFlags(HISTORY_RECORD_COMMAND.options, raw);
  if (f.commits === undefined || f.anchor === undefined) {
    throw new UsageError("history record needs --commits A..B and --anchor REV");
  }
  const ctx0 = await measureContext(raw, configFile, f.branch, io);
  const { planRecord, recordCommits } = await import("../history/record.js");
  const store = await openFromFlags({ ...raw, repo: ctx0.repo }, io.cwd);
  try {
    const ctx = { ...ctx0, store };
    const result = await refsErrors(async () => {
      const plan = await planRecord(ctx, f.commits as string, f.anchor as string);
      if (plan.done.length > 0) {
        io.err(
          `history: ${plan.done.length} of ${plan.commits.length} commits already recorded against ${short(plan.anchor)}: skipped\n`,
        );
      }
      return { plan, ...(await recordCommits(ctx, plan, (line) => io.err(`${line}\n`))) };
    }, io);
    if (typeof result === "number") return result;
    const { plan, measured, stoppedBy } = result;
    const runs = measured.map((m) => ({
      base: m.base,
      head: m.head,
      runId: m.runId,
      runDir: m.runDir,
      interrupted: m.outcome.interrupted,
    }));
    if (f.json) {
      io.out(
        `${JSON.stringify({ store: store.location, branch: ctx.branch, anchor: plan.anchor, linkedFrom: plan.linkFrom, commits: plan.commits, skipped: plan.done, runs }, null, 2)}\n`,
      );
    } else {
      for (const r of runs)
        io.out(`${short(r.head)} against ${short(r.base)}: run ${r.runId} (${escapeText(r.runDir)})\n`);
    }
    io.err(
      `history: ${measured.length} run${measured.length === 1 ? "" : "s"} recorded, ${plan.done.length} skipped: ${escapeText(store.location)}\n`,
    );
    if (stoppedBy === "SIGINT" || stoppedBy === "SIGTERM") return signalExitCode(stoppedBy);
    const broken = measured.some((m) => m.outcome.interrupted || (m.outcome.results.targetCrashes?.length ?? 0) > 0);
    return broken ? EXIT.noResult : EXIT.ok;
  } finally {
    await store.close();
  }
}

async function regressions(argv: Raw, io: HistoryIO): Promise<number> {
  const { raw, configFile } = withConfigFile(argv, io.cwd);
  const f = readFlags(HISTORY_REGRESSIONS_COMMAND.options, raw);
  if (f.since === undefined) throw new UsageError("history regressions needs --since REV (a tag or commit)");
  const ctx0 = await measureContext(raw, configFile, f.branch, io);
  const [{ measurePair, requestedDigest }, { resolveCommit }, { regressionsOf }] = await Promise.all([
    import("../history/record.js"),
    import("../refs/commits.js"),
    import("../verdicts/since-verdict.js"),
  ]);
  const store = await openFromFlags({ ...raw, repo: ctx0.repo }, io.cwd);
  try {
    const ctx = { ...ctx0, store };
    const run = await refsErrors(async () => {
      const since = resolveCommit(ctx.repo, f.since as string);
      const head = resolveCommit(ctx.repo, f.head);
      return measurePair(ctx, "compare", since, head, requestedDigest(ctx));
    }, io);
    if (typeof run === "number") return run;
    const found = regressionsOf(run.outcome.results.verdicts ?? []);
    if (f.json)
      io.out(
        `${JSON.stringify({ since: run.base, head: run.head, runId: run.runId, runDir: run.runDir, regressions: found }, null, 2)}\n`,
      );
    else {
      io.out(
        `${short(run.head)} against ${short(run.base)}: ${found.length === 0 ? "no cell got worse" : `${found.length} cell${found.length === 1 ? "" : "s"} got worse`}\n`,
      );
      for (const r of found) {
        const ci = r.low !== null && r.high !== null ? ` [${r.low.toFixed(3)}, ${r.high.toFixed(3)}]` : "";
        io.out(
          `  ${escapeText(r.cell)} ${r.metric}: ${r.ratio.toFixed(3)}×${ci}, ${r.pairs} pairs (${escapeText(r.reason)})\n`,
        );
      }
    }
    if (run.outcome.stopReason === "SIGINT" || run.outcome.stopReason === "SIGTERM")
      return signalExitCode(run.outcome.stopReason);
    if (run.outcome.interrupted) return EXIT.noResult;
    return found.length > 0 ? EXIT.regression : EXIT.ok;
  } finally {
    await store.close();
  }
}

async function page(argv: Raw, io: HistoryIO): Promise<number> {
  const { raw } = withConfigFile(argv, io.cwd);
  const f = readFlags(HISTORY_PAGE_COMMAND.options, raw);
  const { writeHistoryPage } = await import("../history/page.js");
  const store = await openFromFlags(raw, io.cwd);
  try {
    const settings = { pValue: f["p-value"], window: f.window, permutations: f.permutations };
    const { path, detection } = await writeHistoryPage(store, settings, resolve(io.cwd, f.out), f.branch);
    const summary = { page: path, series: detection.series.length, alerts: detection.alerts.length };
    io.out(
      f.json
        ? `${JSON.stringify(summary, null, 2)}\n`
        : `${escapeText(path)}: ${summary.series} series, ${summary.alerts} alerts\n`,
    );
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

const COMMANDS: Record<string, (argv: Raw, io: HistoryIO) => Promise<number>> = {
  add,
  detect,
  page,
  record,
  regressions,
  triage,
};

/** Runs `history NAME` with yargs' parsed flags; returns the exit code to set. */
export async function runHistoryCommand(name: string, argv: Raw, io: HistoryIO = defaultIO()): Promise<number> {
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`history ${name}: no such command`);
  return command(argv, io);
}
