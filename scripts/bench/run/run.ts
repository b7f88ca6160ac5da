// A bench run, start to end: fixtures, the run context, one phase per matrix (phases.ts), results
// on disk, report. Ctrl-C/SIGTERM stops every target, keeps what finished and reports it.
import { rmSync } from "node:fs";
import { requireK6 } from "../../driver/clients.js";
import type { HistoryContext } from "../../report/history-section.js";
import type { SummaryJson } from "../../report/summary-json.js";
import { writeJudgedReports } from "../../report/write.js";
import type { Results } from "../../results/schema.js";
import { checkBindingOptions, type LoadedBinding, loadBinding } from "../../seed/load-binding.js";
import { storeLocation } from "../../store/store-url.js";
import { verdictsOf } from "../../verdicts/cells.js";
import { roundLoads } from "../../verdicts/disturbance.js";
import type { GuardDecision } from "../../verdicts/guard-verdict.js";
import { runStormVerdicts } from "../../verdicts/storm-verdict.js";
import { buildRunFixtures } from "../fixtures/run-fixtures.js";
import { createProgress, type Progress } from "../progress/progress.js";
import { seedTargets } from "../seed/seed-phase.js";
import type { BenchConfig } from "./config.js";
import { PHASES } from "./phases.js";
import { preflight } from "./preflight.js";
import { withRefTargets } from "./ref-targets.js";
import { createRunContext, type RunContext } from "./run-context.js";

export interface BenchIO {
  /** catchup-bench's own folder: its version and commit, as the report names the harness. */
  root: string;
  /** The user's working directory: runs go to <cwd>/reports and paths are shown from it (default process.cwd()). */
  cwd?: string;
  stdout: NodeJS.WritableStream;
  progress?: Progress;
  /** Install SIGINT/SIGTERM handlers (the CLI does; a program embedding runBench may not). */
  handleSignals?: boolean;
  /** Lines said before the run starts (warnings, checkouts and builds); stderr by default. */
  log?: (line: string) => void;
  /** The command line as typed (the CLI's argv after the node binary and script), for the report. */
  argv?: readonly string[];
}

export interface BenchOutcome {
  runDir: string;
  results: Results;
  interrupted: boolean;
  /** Why the run stopped early (signal name, --fail-fast reason), or null. */
  stopReason: string | null;
  markdown: string;
  /** The summary block alone (for --summary-md and $GITHUB_STEP_SUMMARY). */
  summary: string;
  /** The summary as data (--json). */
  json: SummaryJson;
  guard: GuardDecision | null;
}

/** Runs the bench described by config. Throws FixtureError/TargetError/DriverError for fatal problems. */
export async function runBench(config: BenchConfig, io: BenchIO): Promise<BenchOutcome> {
  const log = io.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cwd = io.cwd ?? process.cwd();
  preflight(config, cwd, (line) => log(`catchup-bench: warning: ${line}`), log);
  // A module that is not a binding, or an option it does not take, is a usage error before anything
  // is checked out or built.
  const binding = await bindingOf(config, io.root, cwd);
  // --repo/--ref: check out and build each revision first (an unknown revision is a usage error).
  const refTargets = await withRefTargets(config.targets, log);
  const progress = io.progress ?? createProgress();
  if (refTargets.driver === "k6") requireK6();
  const built = buildRunFixtures(config, (line) => progress.log(line));
  // --binding: the load phase seeds each foreign variant's own state before any trial.
  const { launch, fixtures } = await seedTargets(config, refTargets, built, binding, log).catch((e) => {
    rmSync(built.workDir, { recursive: true, force: true });
    throw e;
  });
  const ctx = createRunContext({ config, launch, progress, fixtures, io: { ...io, cwd } });
  const phases = PHASES.map((phase) => phase(ctx));
  const kinds = phases.flatMap((p) => p.kinds);
  progress.start(kinds.length, kinds, ctx.adaptive.reserves);
  if (launch.targets.some((t) => t.kind === "command")) {
    progress.log(
      "catchup-bench: that estimate is the bundled server's pace; your server's own replaces it as trials finish",
    );
  }
  try {
    for (const phase of phases) await phase.run();
  } catch (e) {
    ctx.stops.end(e);
  } finally {
    progress.stop();
    await ctx.stops.close();
    await ctx.closeClients();
    rmSync(fixtures.workDir, { recursive: true, force: true });
  }
  return finish(ctx, cwd);
}

/** This run against the history store's series, when there is a store; a store that cannot be read is a warning. */
async function runHistory(ctx: RunContext, cwd: string, results: Results): Promise<HistoryContext | null> {
  const { config } = ctx;
  try {
    // Loaded only here: the query layer's hundreds of modules stay out of a run's start.
    const { existingStore, historyContext } = await import("./history-context.js");
    const path = existingStore(
      config.run.history === null ? null : storeLocation(config.run.history, cwd),
      cwd,
      config.targets.refs?.repo ?? null,
    );
    return await historyContext(path, results);
  } catch (e) {
    ctx.progress.log(`catchup-bench: warning: no History section: ${(e as Error).message}`);
    return null;
  }
}

async function bindingOf(config: BenchConfig, root: string, cwd: string): Promise<LoadedBinding | null> {
  const { module, options, timeoutMs } = config.binding;
  if (module === null) return null;
  const loaded = await loadBinding(module, root, cwd, timeoutMs);
  checkBindingOptions(loaded.binding, options);
  return loaded;
}

/** Judges the results, writes results.json and the reports; a fatal error is thrown once they are kept. */
async function finish(ctx: RunContext, cwd: string): Promise<BenchOutcome> {
  const { file, config, stops, runDir } = ctx;
  for (const v of file.results.variants) {
    const runtime = await stops.runtime(v.name);
    if (runtime) v.runtime = runtime;
  }
  const { disturbedCores, waitQuietSeconds } = config.run;
  ctx.adaptive.record(file.results, {
    thresholdCores: disturbedCores,
    waitQuietSeconds,
    rounds: roundLoads(file.results, disturbedCores, ctx.load.waits()),
  });
  // The run's verdicts, per metric and cell, kept with the rows they were judged on.
  file.results.verdicts = [
    ...verdictsOf(file.results, config.guard, config.minEffect),
    ...runStormVerdicts(file.results, config.guard, config.minEffect),
  ];
  const stopReason = stops.reason();
  const fatal = stops.fatal();
  // The reason is kept with the results (a fatal stop too), so `report` can say later why the run ended.
  let results: Results;
  try {
    results = file.finish(new Date().toISOString(), stopReason);
  } catch (e) {
    throw fatal ?? e; // a full disk at the journal is the first cause, results.json failing after it the second
  }
  const history = await runHistory(ctx, cwd, results);
  const render = () => writeJudgedReports(runDir, results, config.guard, config.minEffect, history);
  if (fatal) {
    await render().catch(() => undefined); // the fatal error is what to report
    throw fatal;
  }
  const { markdown, guard, summary, json } = await render();
  return { runDir, results, interrupted: stopReason !== null, stopReason, markdown, summary, json, guard };
}
