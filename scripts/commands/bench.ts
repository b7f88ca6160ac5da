// `catchup-bench bench`: the latency and memory matrix against the bundled server (legacy baseline,
// batched candidate) or foreign targets. A thin layer over resolveConfig() and runBench().
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Argv, CommandModule } from "yargs";
import { DiskFullError } from "../../fixtures/disk-full.js";
import { FixtureError } from "../../fixtures/meta.js";
import { FixtureInputError } from "../../fixtures/options.js";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { resolveConfig } from "../bench/config.js";
import { DriverError } from "../bench/drivers.js";
import { checkMemory, machineLimits } from "../bench/memory-estimate.js";
import { memoryCells } from "../bench/plan.js";
import { RunDirNotEmptyError, runDirProblem } from "../bench/results-file.js";
import { runBench } from "../bench/run.js";
import { TargetError } from "../bench/target.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { BENCH_COMMAND } from "../options/bench.js";
import { applyOptions } from "../options/yargs.js";
import { redactStream, registerSecret } from "../redact.js";
import { refsExitCode, withRefTargets } from "../refs/targets.js";
import { escapeLines, oneLine } from "../report/failures.js";
import { relativeToRoot } from "../report/model.js";
import { checkStormLimits, describeLimits, readLimits, StormLimitError } from "../storm/limits.js";
import { checkBundledFlags } from "../target/bundled.js";
import { tempDirProblem } from "../temp-dir.js";
import { UsageError, writableDirFlag } from "../usage.js";

/** The package root (dist/scripts/commands/ -> ../../..): default fixtures and reports live there. */
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

export const benchCommand: CommandModule = {
  command: BENCH_COMMAND.command,
  describe: BENCH_COMMAND.describe,
  builder: (y: Argv) => applyOptions(y, BENCH_COMMAND),
  handler: async (argv) => {
    let config = resolveConfig(argv as Record<string, unknown>, process.env);
    // From here on nothing written (results, reports, progress, errors) carries the token; the
    // bundled server's public dev token is no secret.
    if (config.token !== DEV_TOKEN) registerSecret(config.token);
    for (const value of Object.values(config.headers)) registerSecret(value);
    redactStream(process.stdout);
    redactStream(process.stderr);
    // Before any fixture or target work: an unwritable or non-empty --out, an unwritable default
    // reports/ or --fixtures-dir is a usage error, not a crash (or a mixed run folder) later.
    if (config.out) {
      writableDirFlag("out", config.out);
      const problem = runDirProblem(resolve(config.out));
      if (problem) throw new UsageError(`--out ${problem}`);
    } else {
      writableDirFlag("out", join(ROOT, "reports"));
    }
    if (config.fixturesDir) writableDirFlag("fixtures-dir", config.fixturesDir);
    const tmp = tempDirProblem(); // fixture copies go there
    if (tmp) throw new UsageError(tmp);
    // A matrix that cannot fit would only produce servers dead of V8 out-of-memory: say so now.
    const memoryCheck = (argv as Record<string, unknown>)["memory-check"] !== false;
    const fixtureShape = { projects: config.projects, events: config.events };
    const bundledOnly = config.targets.every((t) => t.kind === "bundled");
    if (config.memory && memoryCheck) {
      const check = checkMemory(
        memoryCells(config.scriptBytes, config.clients, config.memoryModes),
        fixtureShape,
        machineLimits(bundledOnly),
      );
      if (check.verdict === "refuse") throw new UsageError(check.line);
      if (check.verdict === "warn") process.stderr.write(`catchup-bench: warning: ${check.line}\n`);
    }
    // --server-arg: the bundled server's own parser judges names and values, before anything starts.
    const serverArgs = config.targets.find((t) => t.kind === "bundled")?.serverArgs ?? [];
    if (serverArgs.length > 0) {
      const problem = checkBundledFlags(serverArgs);
      if (problem)
        throw new UsageError(
          `--server-arg: the bundled server refused ${serverArgs.join(" ")}: ${problem} (\`catchup-bench serve --help\` lists its flags)`,
        );
    }
    // A storm the harness's own descriptor limit (or the backlog) cannot hold is refused before anything starts.
    if (config.stormClients.length > 0) {
      const limits = readLimits(null);
      const refusal = checkStormLimits(Math.max(...config.stormClients), config.stormRampMs, limits);
      if (refusal) throw new UsageError(refusal);
      process.stderr.write(`catchup-bench: storm limits: ${describeLimits(limits)}\n`);
      // Storms are for overload, so a storm that looks too big is run anyway, after a warning.
      if (config.stormRampMs === 0 && memoryCheck) {
        const cells = config.stormClients.flatMap((clients) =>
          config.scriptBytes.map((scriptBytes) => ({ scriptBytes, clients, mode: "all at once" })),
        );
        const check = checkMemory(cells, fixtureShape, machineLimits(bundledOnly), "storm");
        if (check.verdict !== "ok") process.stderr.write(`catchup-bench: warning: ${check.line}\n`);
      }
    }
    try {
      // --repo/--ref: check out and build each revision first (a usage error, e.g. an unknown revision, exits 2).
      config = await withRefTargets(config, (line) => process.stderr.write(`${line}\n`));
    } catch (e) {
      const code = refsExitCode(e);
      if (code === null) throw e;
      process.stderr.write(`catchup-bench: ${(e as Error).message}\n`);
      process.exitCode = code;
      return;
    }
    try {
      const outcome = await runBench(config, { root: ROOT, stdout: process.stdout, handleSignals: true });
      // Below the project root the path is shown relative to it, as in the report.
      const shown = relativeToRoot(join(outcome.runDir, "results.json"), ROOT);
      process.stdout.write(`${outcome.markdown.trimEnd()}\n\nResults: ${shown}\n`);
      if (outcome.guard) process.stdout.write(`${outcome.guard.lines.join("\n")}\n`);
      const crashes = outcome.results.targetCrashes?.length ?? 0;
      if (crashes > 0) {
        process.stderr.write(
          `catchup-bench: ${crashes} target crash${crashes === 1 ? "" : "es"} during the run (see "Target crashes" in ${relativeToRoot(join(outcome.runDir, "report.md"), ROOT)}): no trustworthy result\n`,
        );
      }
      const r = outcome.results;
      const startFailures = [...r.memory, ...(r.aa?.memory ?? [])].filter((row) => row.startFailed).length;
      if (startFailures > 0) {
        process.stderr.write(
          `catchup-bench: ${startFailures} memory trial${startFailures === 1 ? "" : "s"} could not start ${startFailures === 1 ? "its" : "their"} target (see "Failed trials" in ${relativeToRoot(join(outcome.runDir, "report.md"), ROOT)}): no trustworthy result\n`,
        );
      }
      process.exitCode = benchExitCode({ ...outcome, crashes, startFailures });
      if (outcome.stopReason?.startsWith("--fail-fast")) {
        process.stderr.write(`catchup-bench: ${oneLine(outcome.stopReason)}\n`);
      }
    } catch (e) {
      if (e instanceof DiskFullError) {
        // Before any trial nothing was measured (a usage-like refusal); after, the journal keeps every row.
        const kept = e.during === null ? "" : "; results.jsonl keeps every trial finished before it";
        process.stderr.write(`catchup-bench: ${e.message}${kept}\n`);
        process.exitCode = e.during === null ? EXIT.usage : EXIT.noResult;
        return;
      }
      if (e instanceof FixtureError || e instanceof FixtureInputError) throw new UsageError(e.message);
      if (e instanceof RunDirNotEmptyError) throw new UsageError(`--out ${e.message}`);
      if (e instanceof StormLimitError) throw new UsageError(e.message);
      if (e instanceof TargetError || e instanceof DriverError) {
        // A target's own text (its stderr tail) is escaped: no control characters reach the terminal.
        process.stderr.write(`catchup-bench: ${escapeLines(e.message)}\n`);
        process.exitCode = EXIT.noResult;
        return;
      }
      throw e;
    }
  },
};
