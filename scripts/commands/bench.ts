// `catchup-bench bench`: the latency and memory matrix against the bundled server (legacy baseline,
// batched candidate) or foreign targets. A thin layer over resolveConfig() and runBench()
// (which checks the run can start, resolves --ref targets, then runs it). The harness itself is
// loaded once the flags are read: a usage error never waits for it.
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Argv, CommandModule } from "yargs";
import { DiskFullError } from "../../common/disk-full.js";
import { FixtureInputError } from "../../fixtures/options.js";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import type { BenchConfig } from "../bench/run/config.js";
import { DriverError } from "../driver/clients.js";
import { BENCH_COMMAND } from "../options/bench.js";
import { benchRequest } from "../options/bench-request.js";
import { namedFromFile } from "../options/config-file.js";
import { applyOptions } from "../options/yargs.js";
import { RunDirNotEmptyError } from "../results/journal.js";
import { StormLimitError } from "../storm/limits.js";
import { escapeLines, escapeText, oneLine } from "../util/escape.js";
import { EXIT, type ExitCode, signalExitCode } from "../util/exit-codes.js";
import { redactStream, registerSecret } from "../util/redact.js";
import { UsageError } from "../util/usage.js";
import { emitReport } from "./summary-out.js";

/** The package root (dist/scripts/commands/ -> ../../..): the harness's version and commit. */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * The exit code of a finished bench: a signal's own code when one stopped it; no result when a
 * target crashed or the run stopped early for another reason (--fail-fast); else the guard's code.
 */
export function benchExitCode(outcome: {
  stopReason?: string | null | undefined;
  interrupted: boolean;
  crashes: number;
  /** Memory trials whose target could not be started (the latency matrix stops at such a target). */
  startFailures?: number;
  guard?: { pass: boolean; exitCode?: ExitCode } | null | undefined;
}): ExitCode {
  if (outcome.stopReason === "SIGINT") return EXIT.sigint;
  if (outcome.stopReason === "SIGTERM") return EXIT.sigterm;
  if (outcome.crashes > 0 || outcome.interrupted || (outcome.startFailures ?? 0) > 0) return EXIT.noResult;
  if (!outcome.guard) return EXIT.ok;
  return outcome.guard.exitCode ?? (outcome.guard.pass ? EXIT.ok : EXIT.regression);
}

/** Says an error of the refs stage (one message) and sets its exit code; false when e is not one. */
async function reportedRefsError(e: unknown): Promise<boolean> {
  const { refsExitCode } = await import("../bench/run/ref-targets.js");
  const code = refsExitCode(e);
  if (code === null) return false;
  // git's and a build's own lines are data: no control characters reach the terminal.
  process.stderr.write(`catchup-bench: ${escapeLines((e as Error).message)}\n`);
  process.exitCode = code;
  return true;
}

export const benchCommand: CommandModule = {
  command: BENCH_COMMAND.command,
  describe: BENCH_COMMAND.describe,
  builder: (y: Argv) =>
    applyOptions(y, BENCH_COMMAND)
      // The five most common runs.
      .example("$0 bench", "the bundled server, legacy (baseline) vs batched (candidate), full matrix")
      .example("$0 bench --quick", "a smaller run of about a minute: 1 trial, 1 KiB memory cells")
      .example(
        "$0 bench --ref main=origin/main --ref head=HEAD --ceiling 1.03",
        "two revisions of this repository, judged by the regression guard (exit 1 on FAIL)",
      )
      .example(
        "$0 bench --target 'base=node old/server.js --port {port}' --target 'head=node new/server.js --port {port}'",
        "two builds of your own server",
      )
      .example("$0 report reports/<run> --ceiling 1.03 > comment.md", "re-judge a run; stdout is the comment to post"),
  handler: async (argv) => {
    const request = benchRequest(argv as Record<string, unknown>, process.cwd(), process.env);
    try {
      if ("clean" in request) await cleanCache(request.clean);
      else await runConfig(request.config);
    } catch (e) {
      // A flag refused later (a --fixture that is missing, a --repo that is no repository) is named
      // where it was given, as benchRequest names the ones it refuses.
      throw request.origin && e instanceof UsageError ? new UsageError(namedFromFile(e.message, request.origin)) : e;
    }
  },
};

/** --repo R --clean-checkouts: removes R's checkout cache and runs nothing. */
async function cleanCache(repo: string): Promise<void> {
  const { cleanCheckouts, cleanText } = await import("../refs/clean.js");
  try {
    process.stdout.write(`${cleanText(cleanCheckouts(repo)).join("\n")}\n`);
  } catch (e) {
    if (!(await reportedRefsError(e))) throw e;
  }
}

/**
 * A --ref run's checkouts stay in the repository (hundreds of MB, as detached worktrees): its last
 * lines say how much and how to list and remove them. Nothing when it cannot be read.
 */
async function refsCacheLine(config: BenchConfig): Promise<string[]> {
  if (!config.targets.refs) return [];
  const { cacheLine } = await import("../refs/cache-list.js");
  try {
    return [cacheLine(config.targets.refs.repo)];
  } catch {
    return [];
  }
}

/** Runs the bench a config describes and reports it; sets the exit code. */
async function runConfig(config: BenchConfig): Promise<void> {
  // From here on nothing written (results, reports, progress, errors) carries the token; the
  // bundled server's public dev token is no secret.
  if (config.protocol.token !== DEV_TOKEN) registerSecret(config.protocol.token);
  for (const value of Object.values(config.protocol.headers)) registerSecret(value);
  redactStream(process.stdout);
  redactStream(process.stderr);
  const [{ runBench }, { TargetError }, { SeedStopped }, { relativeToRoot }, { FixtureError }] = await Promise.all([
    import("../bench/run/run.js"),
    import("../bench/trial/launch.js"),
    import("../bench/seed/seed-phase.js"),
    import("../report/model.js"),
    import("../../fixtures/meta.js"),
  ]);
  try {
    const outcome = await runBench(config, {
      root: ROOT,
      stdout: process.stdout,
      handleSignals: true,
      log: (line) => process.stderr.write(`${line}\n`),
      argv: process.argv.slice(2),
    });
    // A file of the run as printed: below the project root relative to it, as in the report; a
    // newline or control character in --out shown escaped, never printed raw.
    const shownPath = (file: string) => escapeText(relativeToRoot(join(outcome.runDir, file), process.cwd()));
    const shown = shownPath("results.json");
    // stdout: the Markdown alone (or --json); the path and the guard's lines go to stderr.
    emitReport(
      outcome,
      { json: config.run.json, "summary-md": config.run.summaryMd ?? undefined },
      process.env,
      (t) => process.stdout.write(t),
      (t) => process.stderr.write(t),
      [`Results: ${shown}`, ...(await refsCacheLine(config)), ...(outcome.guard?.lines ?? [])],
    );
    const crashes = outcome.results.targetCrashes?.length ?? 0;
    if (crashes > 0) {
      process.stderr.write(
        `catchup-bench: ${crashes} target crash${crashes === 1 ? "" : "es"} during the run (see "Target crashes" in ${shownPath("report.md")}): no trustworthy result\n`,
      );
    }
    const r = outcome.results;
    const startFailures = [...r.memory, ...(r.aa?.memory ?? [])].filter((row) => row.startFailed).length;
    if (startFailures > 0) {
      process.stderr.write(
        `catchup-bench: ${startFailures} memory trial${startFailures === 1 ? "" : "s"} could not start ${startFailures === 1 ? "its" : "their"} target (see "Failed trials" in ${shownPath("report.md")}): no trustworthy result\n`,
      );
    }
    process.exitCode = benchExitCode({ ...outcome, crashes, startFailures });
    if (outcome.stopReason?.startsWith("--fail-fast")) {
      process.stderr.write(`catchup-bench: ${oneLine(outcome.stopReason)}\n`);
    }
  } catch (e) {
    if (await reportedRefsError(e)) return;
    if (e instanceof DiskFullError) {
      // Before any trial nothing was measured (a usage-like refusal); after, the journal keeps every row.
      const kept = e.during === null ? "" : "; results.jsonl keeps every trial finished before it";
      // The run's scratch copies fill the temp directory, which the user may not know they chose;
      // a run folder the user put under it is named as the file alone.
      const runFolder = resolve(config.run.out ?? join(ROOT, "reports"));
      const inside = (dir: string) => resolve(e.path).startsWith(join(dir, "/"));
      const where =
        inside(tmpdir()) && !inside(runFolder)
          ? ": the temp directory (TMPDIR) is full; free space there or set TMPDIR to a folder with room"
          : "";
      process.stderr.write(`catchup-bench: ${e.message}${where}${kept}\n`);
      process.exitCode = e.during === null ? EXIT.usage : EXIT.noResult;
      return;
    }
    if (e instanceof FixtureError || e instanceof FixtureInputError) throw new UsageError(e.message);
    if (e instanceof RunDirNotEmptyError) throw new UsageError(`--out ${e.message}`);
    if (e instanceof StormLimitError) throw new UsageError(e.message);
    if (e instanceof TargetError || e instanceof DriverError) {
      // A target's own text (its stderr tail) is escaped: no control characters reach the terminal.
      process.stderr.write(`catchup-bench: ${escapeLines(e.message)}\n`);
      process.exitCode = e instanceof SeedStopped ? signalExitCode(e.signal) : EXIT.noResult;
      return;
    }
    throw e;
  }
}
