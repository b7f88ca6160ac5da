// A bench run, start to end: fixtures, plan, latency cells, memory cells, the A/A run when asked,
// results on disk, report. Ctrl-C/SIGTERM stops every target, keeps what finished and reports it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { removeDeadOwners } from "../../fixtures/atomic-file.js";
import { FIXTURE_DATA_DIR } from "../../fixtures/options.js";
import { EXIT } from "../exit-codes.js";
import { runLeak } from "../leak/run.js";
import { escapeText, exitText } from "../report/failures.js";
import { size } from "../report/format.js";
import type { GuardDecision } from "../report/guard.js";
import { type GuardSettings, verdictsOf } from "../report/verdicts.js";
import type { Results, RunFixture, RunInfo, VariantInfo } from "../results.js";
import { runStorm } from "../storm/run.js";
import { runStormVerdicts } from "../storm/verdicts.js";
import { bundledCommandLine } from "../target/bundled.js";
import { killAllNow } from "../target/process.js";
import { createAutoSampler } from "./auto-sample.js";
import type { BenchConfig, TargetSpec } from "./config.js";
import { driverFor, requireK6, runClientsInWorker } from "./drivers.js";
import { pinFixture } from "./fixture-pin.js";
import { ensureFixture, type FixtureRef, userFixture, withSequences } from "./fixtures.js";
import { type CrashReport, FailFast, runLatency } from "./latency.js";
import { runDirName, runInfo } from "./machine.js";
import { runMemory } from "./memory.js";
import { isThreadCase, latencyPlan, memoryCells, memoryPlan } from "./plan.js";
import { createProgress, type Progress, trialLabel } from "./progress.js";
import { renderReport } from "./report.js";
import { ResultsFile } from "./results-file.js";
import type { Target } from "./target.js";

export interface BenchIO {
  /** Project root: default fixtures go to <root>/fixtures, runs to <root>/reports. */
  root: string;
  stdout: NodeJS.WritableStream;
  progress?: Progress;
  /** Install SIGINT/SIGTERM handlers (the CLI does; a program embedding runBench may not). */
  handleSignals?: boolean;
}

export interface BenchOutcome {
  runDir: string;
  results: Results;
  interrupted: boolean;
  /** Why the run stopped early (signal name, --fail-fast reason), or null. */
  stopReason: string | null;
  markdown: string;
  guard: GuardDecision | null;
}

/** A progress label; a round past the plan is auto-sampling's, and says so. */
function roundLabel(cell: string, trial: number, planned: number, aa: boolean): string {
  return trial > planned
    ? `${aa ? "A/A " : ""}${cell}, auto-sample round ${trial}`
    : trialLabel(cell, trial, planned, aa);
}

/** The A/A copy of the baseline is "A2" (the baseline itself is A1), unless a target already has that name. */
export function aaCopyName(names: readonly string[]): string {
  let name = "A2";
  while (names.includes(name)) name = `${name}-copy`;
  return name;
}

/** The guard settings of a run, or null without --ceiling. */
export function guardOf(config: BenchConfig): GuardSettings | null {
  return config.ceiling === null
    ? null
    : {
        ceiling: config.ceiling,
        metrics: config.guard,
        confidence: config.guardConfidence,
        allowMissing: config.allowMissing,
      };
}
const WORK_PREFIX = "catchup-bench-";

/**
 * Removes the fixture copies of runs whose harness died without cleaning up (SIGKILL): their work
 * directories are named after the harness pid.
 */
export function sweepStaleWorkDirs(dir = tmpdir()): void {
  removeDeadOwners(dir, new RegExp(`^${WORK_PREFIX}(\\d+)-`));
}

export function variantInfos(targets: TargetSpec[]): VariantInfo[] {
  return targets.map((t, i) => ({
    name: t.name,
    kind: t.kind,
    command: t.kind === "bundled" ? bundledCommandLine(t.delivery, t.serverArgs) : t.command,
    role: i === 0 ? "baseline" : "candidate",
    ...(t.kind === "command" ? t.ref : undefined),
  }));
}

/** "memory 1 KiB × 10 resume legacy": a memory cell and variant, for progress labels. */
function memoryCellLabel(t: { scriptBytes: number; clients: number; mode: string; variant: string }): string {
  return `memory ${size(t.scriptBytes)} × ${t.clients} ${t.mode} ${t.variant}`;
}

/** Runs the bench described by config. Throws FixtureError/TargetError/DriverError for fatal problems. */
export async function runBench(config: BenchConfig, io: BenchIO): Promise<BenchOutcome> {
  const progress = io.progress ?? createProgress();
  if (config.driver === "k6") requireK6();
  const fixturesDir = resolve(config.fixturesDir ?? join(io.root, FIXTURE_DATA_DIR));
  sweepStaleWorkDirs();
  // Fixture copies live here: the pinned copy of each fixture (a run measures exactly one), and each target's.
  const workDir = mkdtempSync(join(tmpdir(), `${WORK_PREFIX}${process.pid}-`));
  const builtFor = new Map<number, FixtureRef>();
  const build = (bytes: number): FixtureRef => {
    const known = builtFor.get(bytes);
    if (known) return known;
    const ref = withSequences(
      pinFixture(
        ensureFixture(fixturesDir, config.projects, bytes, config.events, config.seed, (path, why) =>
          progress.log(
            `building fixture ${path} (${config.projects} projects × ${size(bytes)}, ${config.events} events; ${why})`,
          ),
        ),
        workDir,
      ),
      config.sequences,
    );
    builtFor.set(bytes, ref);
    return ref;
  };
  let latencyFixture: FixtureRef | null;
  const memoryFixtures = new Map<number, FixtureRef>();
  // Leak cycles resume from the first memory fixture's cursor, as the memory cells' resume case does.
  const leakBytes = config.scriptBytes[0] ?? 1024;
  // Storm cells use the memory cells' fixtures (one per script size), built here when memory cells are off.
  const stormFixtures = new Map<number, FixtureRef>();
  let leakFixture: FixtureRef | null;
  try {
    latencyFixture = config.latency
      ? config.fixture
        ? withSequences(pinFixture(userFixture(config.fixture), workDir), config.sequences)
        : build(1024)
      : null;
    if (config.memory) for (const b of config.scriptBytes) memoryFixtures.set(b, build(b));
    leakFixture = config.leakCycles > 0 ? build(leakBytes) : null;
    if (config.stormClients.length > 0) for (const b of config.scriptBytes) stormFixtures.set(b, build(b));
  } catch (e) {
    rmSync(workDir, { recursive: true, force: true });
    throw e;
  }
  // A fixture without threads (one built before threads, or with --threads 0) has no thread cases to run.
  const cases =
    latencyFixture && latencyFixture.meta.threads === 0 ? config.cases.filter((c) => !isThreadCase(c)) : config.cases;
  if (cases.length < config.cases.length) {
    progress.log(
      `thread cases skipped: fixture ${latencyFixture?.source ?? latencyFixture?.path} has no threads (build one with: npm run fixture -- --threads N)`,
    );
  }

  const runDir = resolve(config.out ?? join(io.root, "reports", runDirName()));
  mkdirSync(runDir, { recursive: true });
  const sourceOf = (f: FixtureRef) => f.source ?? f.path;
  const resolvedConfig = {
    ...config,
    cases,
    out: runDir,
    fixture: latencyFixture ? sourceOf(latencyFixture) : null,
    memoryFixtures: Object.fromEntries([...memoryFixtures].map(([b, f]) => [b, sourceOf(f)])),
  };
  const fixtureShape = ({ meta }: FixtureRef): RunFixture => ({
    projects: meta.projects,
    events: meta.events,
    scriptBytesMin: meta.scriptBytesMin,
    scriptBytesMax: meta.scriptBytesMax,
    contentSha256: meta.contentSha256,
  });
  const info: RunInfo = {
    ...runInfo(resolvedConfig, io.root),
    projectRoot: resolve(io.root),
    fixtures: {
      latency: latencyFixture ? fixtureShape(latencyFixture) : null,
      memory: [...memoryFixtures.values()].map(fixtureShape),
      ...(leakFixture ? { leak: fixtureShape(leakFixture) } : {}),
    },
  };
  const file = new ResultsFile(runDir, info, variantInfos(config.targets));

  // Interrupts: stop new trials, stop running targets (their sessions then fail fast), keep results.
  let stopReason: string | null = null;
  let fatal: Error | null = null;
  const running = new Set<Target>();
  const track = (t: Target) => {
    running.add(t);
    return () => running.delete(t);
  };
  const stopped = () => stopReason !== null;
  // Aborted on an interrupt: a target still starting (or warming up) stops at once.
  const abort = new AbortController();
  const interrupt = (reason: string) => {
    if (stopReason !== null) {
      // A second signal: do not wait for anything.
      killAllNow();
      process.exit(stopReason === "SIGTERM" ? EXIT.sigterm : EXIT.sigint);
    }
    stopReason = reason;
    progress.interrupt(`${reason}: stopping targets, keeping finished results`);
    abort.abort();
    for (const t of running) void t.stop(config.stopGraceMs);
  };
  const onSigint = () => interrupt("SIGINT");
  const onSigterm = () => interrupt("SIGTERM");
  if (io.handleSignals) {
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
  }

  const targets = new Map(config.targets.map((t) => [t.name, t]));
  const baseline = config.targets[0] as TargetSpec;
  const names = config.targets.map((t) => t.name);
  // A/A, interleaved: a second copy of the baseline runs in every round beside baseline and
  // candidate (rotated with them), so each cell's noise band is measured under the same conditions.
  // A single target has nothing to compare, so it gets no copy.
  const aaName = aaCopyName(names);
  const withAa = config.aa && names.length >= 2;
  if (withAa) targets.set(aaName, { ...baseline, name: aaName });
  const roundVariants = withAa ? [...names, aaName] : names;
  const isAa = (variant: string) => withAa && variant === aaName;
  const lPlan = config.latency ? latencyPlan(cases, roundVariants, config.trials) : [];
  const cells = memoryCells(config.scriptBytes, config.clients, config.memoryModes);
  const mPlan = config.memory ? memoryPlan(cells, roundVariants, config.memoryTrials) : [];
  const leakTotal = config.leakCycles > 0 ? (config.leakWarmup + config.leakCycles) * names.length : 0;
  const stormTotal = config.stormClients.length * config.scriptBytes.length * config.stormTrials * roundVariants.length;
  progress.start(lPlan.length + mPlan.length + leakTotal + stormTotal);
  // Auto-sampling's extra rounds join the progress total as they are planned.
  const grown = <T>(trials: T[]): T[] => {
    progress.grow(trials.length);
    return trials;
  };
  const guardSettings = guardOf(config);
  const auto =
    config.autoSampleSeconds !== null && guardSettings && names.length >= 2
      ? createAutoSampler({
          budgetSeconds: config.autoSampleSeconds,
          guard: guardSettings,
          variants: roundVariants,
          cases,
          cells,
          results: () => file.results,
          now: () => performance.now(),
        })
      : null;

  // A target that died on its own is kept in the results (and said at once), never silently replaced.
  const crash = (c: CrashReport, matrix: "latency" | "memory" | "leak" | "storm", aa: boolean) => {
    file.addCrash({ ...c, matrix, ...(aa ? { aa: true } : {}), at: new Date().toISOString() });
    progress.log(`target ${escapeText(c.variant)} died (${exitText(c)}) ${escapeText(c.during)}`);
  };
  try {
    const runClients = driverFor(config.driver);
    const latencyRun = async (plan: typeof lPlan, tmap: Map<string, TargetSpec>) => {
      if (!latencyFixture || plan.length === 0) return;
      await runLatency({
        more: auto ? () => grown(auto.moreLatency()) : undefined,
        config,
        fixture: latencyFixture,
        workDir,
        targets: tmap,
        plan,
        runClients,
        stopped,
        track,
        signal: abort.signal,
        onTrialStart: (t) =>
          progress.trial(roundLabel(`${t.case} ${t.variant}`, t.trial, config.trials, isAa(t.variant))),
        onCrash: (c) => crash(c, "latency", isAa(c.variant)),
        onRow: (row) => {
          file.addLatency(row, isAa(row.variant));
          progress.done(roundLabel(`${row.case} ${row.variant}`, row.trial, config.trials, isAa(row.variant)), row.ok);
        },
      });
    };
    const memoryRun = async (plan: typeof mPlan, tmap: Map<string, TargetSpec>) => {
      if (plan.length === 0) return;
      await runMemory({
        more: auto ? () => grown(auto.moreMemory()) : undefined,
        config,
        fixtures: memoryFixtures,
        workDir,
        runDir,
        targets: tmap,
        plan,
        stopped,
        track,
        signal: abort.signal,
        samplesPrefix: "",
        // Node clients run in a worker thread during memory cells: the sampler owns this thread.
        runClients: config.driver === "node" ? runClientsInWorker : runClients,
        onTrialStart: (t) =>
          progress.trial(roundLabel(memoryCellLabel(t), t.trial, config.memoryTrials, isAa(t.variant))),
        onCrash: (c) => crash(c, "memory", isAa(c.variant)),
        onRow: (row) => {
          file.addMemory(row, isAa(row.variant));
          progress.done(roundLabel(memoryCellLabel(row), row.trial, config.memoryTrials, isAa(row.variant)), row.ok);
        },
      });
    };
    await latencyRun(lPlan, targets);
    await memoryRun(mPlan, targets);
    if (leakFixture && !stopped()) {
      // The A/A copy does not run here: the leak verdict is per variant, against a fixed threshold.
      const label = (variant: string, cycle: number, of: number) => `leak ${variant}, cycle ${cycle}/${of}`;
      const rows = await runLeak({
        config,
        fixture: leakFixture,
        workDir,
        targets: config.targets,
        // As in memory cells: Node clients in a worker thread, so this thread's GC and /proc reads stay prompt.
        runClients: config.driver === "node" ? runClientsInWorker : runClients,
        stopped,
        track,
        signal: abort.signal,
        onCycleStart: (v, c, of) => progress.trial(label(v, c, of)),
        onCycle: (v, c, of, ok) => progress.done(label(v, c, of), ok),
        onCrash: (c) => crash(c, "leak", false),
      });
      for (const row of rows) file.addLeak(row);
    }
    if (config.stormClients.length > 0 && !stopped()) {
      // As in memory cells, the A/A copy runs in every round (rotated with the others): each storm
      // cell gets its noise band.
      const label = (c: { clients: number; scriptBytes: number; variant: string }) =>
        `storm ${c.clients} × ${size(c.scriptBytes)} ${c.variant}`;
      await runStorm({
        config,
        fixtures: stormFixtures,
        workDir,
        runDir,
        targets: roundVariants.map((n) => targets.get(n) as TargetSpec),
        aaVariant: withAa ? aaName : null,
        stopped,
        track,
        signal: abort.signal,
        onLimits: (line) => progress.log(line),
        onCellStart: (c) => progress.trial(trialLabel(label(c), c.trial, config.stormTrials, isAa(c.variant))),
        onCrash: (c) => crash(c, "storm", isAa(c.variant)),
        onRow: (row) => {
          file.addStorm(row);
          progress.done(
            trialLabel(label(row), row.trial, config.stormTrials, isAa(row.variant)),
            row.ok === row.clients,
          );
        },
      });
    }
  } catch (e) {
    // --fail-fast ends the run like an interrupt; anything else is fatal, after the results are kept.
    // An error caused by the interrupt itself (a target stopped while starting) is not a second reason.
    if (!stopped()) {
      if (!(e instanceof FailFast)) fatal = e as Error;
      stopReason = (e as Error).message;
    }
  } finally {
    progress.stop();
    if (io.handleSignals) {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
    }
    await Promise.all([...running].map((t) => t.stop(config.stopGraceMs)));
    rmSync(workDir, { recursive: true, force: true });
  }

  // The run's verdicts, per metric and cell, kept with the rows they were judged on.
  if (auto) file.results.autoSample = auto.info();
  file.results.verdicts = [
    ...verdictsOf(file.results, guardSettings),
    ...runStormVerdicts(file.results, guardSettings),
  ];
  // The reason is kept with the results (a fatal stop too), so `report` can say later why the run ended.
  let results: Results;
  try {
    results = file.finish(new Date().toISOString(), stopReason);
  } catch (e) {
    throw fatal ?? e; // a full disk at the journal is the first cause, results.json failing after it the second
  }
  if (fatal) {
    await renderReport(runDir, results, config).catch(() => undefined); // the fatal error is what to report
    throw fatal;
  }
  const { markdown, guard } = await renderReport(runDir, results, config);
  return { runDir, results, interrupted: stopReason !== null, stopReason, markdown, guard };
}
