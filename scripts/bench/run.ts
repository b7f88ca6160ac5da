// A bench run, start to end: fixtures, plan, latency cells, memory cells, the A/A run when asked,
// results on disk, report. Ctrl-C/SIGTERM stops every target, keeps what finished and reports it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { removeDeadOwners } from "../../fixtures/atomic-file.js";
import { fixtureCacheDir } from "../../fixtures/options.js";
import { driverFor, requireK6, runClientsInWorker } from "../driver/clients.js";
import { exitText } from "../report/failures.js";
import type { SummaryJson } from "../report/summary-json.js";
import { memoryCellName } from "../results/cell-names.js";
import { ResultsFile } from "../results/journal.js";
import type { Results, RunFixture, RunInfo, VariantInfo } from "../results/schema.js";
import { bundledCommandLine } from "../target/bundled.js";
import { killAllNow } from "../target/process.js";
import { type TargetRuntime, targetRuntime } from "../target/runtime.js";
import { escapeText } from "../util/escape.js";
import { EXIT } from "../util/exit-codes.js";
import { size } from "../util/format.js";
import { verdictsOf } from "../verdicts/cells.js";
import { roundLoads } from "../verdicts/disturbance.js";
import type { GuardDecision } from "../verdicts/guard.js";
import { runStormVerdicts } from "../verdicts/storm.js";
import { attributionPlan, runAttribution } from "./attribute.js";
import { autoSampleReserve, createAutoSampler } from "./auto-sample.js";
import { commandLine, harnessVersionOf } from "./command-line.js";
import { type BenchConfig, recordedConfig, type TargetSpec } from "./config.js";
import { pinFixture } from "./fixture-pin.js";
import { ensureFixture, type FixtureRef, userFixture, withSequences } from "./fixtures.js";
import { type CrashReport, FailFast, runLatency } from "./latency.js";
import type { Target } from "./launch.js";
import { runLeak } from "./leak.js";
import { createLoadRecorder } from "./load-recorder.js";
import { runDirName, runInfo } from "./machine.js";
import { runMemory } from "./memory.js";
import { createMemoryRounds, memoryRoundsReserve } from "./memory-rounds.js";
import { affinityOf, planPinning } from "./pinning.js";
import { isThreadCase, latencyPlan, type MemoryTrial, memoryCells, memoryPlan, trialKind } from "./plan.js";
import { preflight } from "./preflight.js";
import { createProgress, type Progress, trialLabel } from "./progress.js";
import { withRefTargets } from "./refs.js";
import { renderReport } from "./report.js";
import { runStorm } from "./storm.js";

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

/** A progress label; a round past the plan is auto-sampling's, and says so. */
/** Memory rounds past the plan come from sequential rounds or auto-sampling. */
const ADDED = "added round";

function roundLabel(cell: string, trial: number, planned: number, aa: boolean, added = "auto-sample round"): string {
  return trial > planned ? `${aa ? "A/A " : ""}${cell}, ${added} ${trial}` : trialLabel(cell, trial, planned, aa);
}

/** The A/A copy of the baseline is "A2" (the baseline itself is A1), unless a target already has that name. */
export function aaCopyName(names: readonly string[]): string {
  let name = "A2";
  while (names.includes(name)) name = `${name}-copy`;
  return name;
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
    command:
      t.kind === "bundled"
        ? bundledCommandLine(t.delivery, t.serverArgs).replace(
            /^node /,
            `node ${(t.nodeArgs ?? []).map((a) => `${a} `).join("")}`,
          )
        : t.command,
    role: i === 0 ? "baseline" : "candidate",
    ...(t.kind === "command" ? t.ref : undefined),
  }));
}

/** "memory 1 KiB × 10, resume legacy": a memory cell (named as in the report) and variant, for progress labels. */
function memoryCellLabel(t: { scriptBytes: number; clients: number; mode: string; variant: string }): string {
  return `memory ${memoryCellName(t)} ${t.variant}`;
}

/** Runs the bench described by config. Throws FixtureError/TargetError/DriverError for fatal problems. */
export async function runBench(config: BenchConfig, io: BenchIO): Promise<BenchOutcome> {
  const { run, protocol, fixtures: fx, latency, memory, leak, storm, guard: guardConfig } = config;
  const log = io.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const cwd = io.cwd ?? process.cwd();
  preflight(config, cwd, (line) => log(`catchup-bench: warning: ${line}`), log);
  // --repo/--ref: check out and build each revision first (an unknown revision is a usage error).
  const launch = await withRefTargets(config.targets, log);
  const progress = io.progress ?? createProgress();
  if (launch.driver === "k6") requireK6();
  const fixturesDir = resolve(fx.fixturesDir ?? fixtureCacheDir());
  sweepStaleWorkDirs();
  // Fixture copies live here: the pinned copy of each fixture (a run measures exactly one), and each target's.
  const workDir = mkdtempSync(join(tmpdir(), `${WORK_PREFIX}${process.pid}-`));
  const builtFor = new Map<number, FixtureRef>();
  const build = (bytes: number): FixtureRef => {
    const known = builtFor.get(bytes);
    if (known) return known;
    const ref = withSequences(
      pinFixture(
        ensureFixture(fixturesDir, fx.projects, bytes, fx.events, fx.seed, (path, why) =>
          progress.log(
            `building fixture ${path} (${fx.projects} projects × ${size(bytes)}, ${fx.events} events; ${why})`,
          ),
        ),
        workDir,
      ),
      fx.sequences,
    );
    builtFor.set(bytes, ref);
    return ref;
  };
  let latencyFixture: FixtureRef | null;
  const memoryFixtures = new Map<number, FixtureRef>();
  // Leak cycles resume from the first memory fixture's cursor, as the memory cells' resume case does.
  const leakBytes = memory.scriptBytes[0] ?? 1024;
  // Storm cells use the memory cells' fixtures (one per script size), built here when memory cells are off.
  const stormFixtures = new Map<number, FixtureRef>();
  let leakFixture: FixtureRef | null;
  try {
    latencyFixture = latency.enabled
      ? fx.fixture
        ? withSequences(pinFixture(userFixture(fx.fixture), workDir), fx.sequences)
        : build(1024)
      : null;
    if (memory.enabled) for (const b of memory.scriptBytes) memoryFixtures.set(b, build(b));
    leakFixture = leak.cycles > 0 ? build(leakBytes) : null;
    if (storm.clients.length > 0) for (const b of memory.scriptBytes) stormFixtures.set(b, build(b));
  } catch (e) {
    rmSync(workDir, { recursive: true, force: true });
    throw e;
  }
  // The file a pinned fixture was copied from (the path the user knows).
  const sourceOf = (f: FixtureRef) => f.source ?? f.path;
  // A fixture without threads (one built before threads, or with --threads 0) has no thread cases to run.
  const cases =
    latencyFixture && latencyFixture.meta.threads === 0 ? latency.cases.filter((c) => !isThreadCase(c)) : latency.cases;
  if (cases.length < latency.cases.length) {
    progress.log(
      `thread cases skipped: fixture ${latencyFixture ? sourceOf(latencyFixture) : ""} has no threads (build one with: npm run fixture -- --threads N)`,
    );
  }

  const runDir = resolve(run.out ?? join(cwd, "reports", runDirName()));
  mkdirSync(runDir, { recursive: true });
  // results.json keeps the flat field names every reader knows (recordedConfig), with the targets as resolved.
  const resolvedConfig = {
    ...recordedConfig({ ...config, targets: launch }),
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
    projectRoot: resolve(cwd),
    ...(io.argv ? { command: commandLine(io.argv) } : {}),
    ...harnessVersionOf(io.root),
    fixtures: {
      latency: latencyFixture ? fixtureShape(latencyFixture) : null,
      memory: [...memoryFixtures.values()].map(fixtureShape),
      ...(leakFixture ? { leak: fixtureShape(leakFixture) } : {}),
    },
  };
  // Memory trials pin the target and the harness to different CPUs when they can; recorded either way.
  const pinning = memory.enabled ? planPinning(affinityOf(process.pid), memory.pin) : null;
  if (pinning) info.pinning = pinning;
  const file = new ResultsFile(runDir, info, variantInfos(launch.targets));

  // Interrupts: stop new trials, stop running targets (their sessions then fail fast), keep results.
  let stopReason: string | null = null;
  let fatal: Error | null = null;
  const running = new Set<Target>();
  // Each variant's runtime, read from its first started target (the report names the targets' Node).
  const runtimes = new Map<string, Promise<TargetRuntime>>();
  const track = (t: Target) => {
    running.add(t);
    if (!runtimes.has(t.name)) runtimes.set(t.name, targetRuntime(t.pid));
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
    for (const t of running) void t.stop(launch.stopGraceMs);
  };
  const onSigint = () => interrupt("SIGINT");
  const onSigterm = () => interrupt("SIGTERM");
  if (io.handleSignals) {
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
  }

  const targets = new Map(launch.targets.map((t) => [t.name, t]));
  const baseline = launch.targets[0] as TargetSpec;
  const names = launch.targets.map((t) => t.name);
  // A/A, interleaved: a second copy of the baseline runs in every round beside baseline and
  // candidate (rotated with them), so each cell's noise band is measured under the same conditions.
  // A single target has nothing to compare, so it gets no copy.
  const aaName = aaCopyName(names);
  const withAa = launch.aa && names.length >= 2;
  if (withAa) targets.set(aaName, { ...baseline, name: aaName });
  const roundVariants = withAa ? [...names, aaName] : names;
  const isAa = (variant: string) => withAa && variant === aaName;
  const lPlan = latency.enabled ? latencyPlan(cases, roundVariants, latency.trials) : [];
  const cells = memoryCells(memory.scriptBytes, memory.clients, memory.modes);
  const mPlan = memory.enabled ? memoryPlan(cells, roundVariants, memory.trials) : [];
  const leakTotal = leak.cycles > 0 ? (leak.warmup + leak.cycles) * names.length : 0;
  const stormTotal = storm.clients.length * memory.scriptBytes.length * storm.trials * roundVariants.length;
  const auto =
    run.autoSampleSeconds !== null && guardConfig && names.length >= 2
      ? createAutoSampler({
          budgetSeconds: run.autoSampleSeconds,
          guard: guardConfig,
          variants: roundVariants,
          cases,
          cells,
          results: () => file.results,
          now: () => performance.now(),
        })
      : null;

  // Sequential memory rounds: cells whose headline verdicts are not yet clear get rounds up to 8 pairs.
  const seqSeconds = memory.sequentialSeconds;
  const rounds =
    seqSeconds > 0 && memory.enabled && names.length >= 2
      ? createMemoryRounds({
          budgetSeconds: seqSeconds,
          variants: roundVariants,
          cells,
          results: () => file.results,
          now: () => performance.now(),
        })
      : null;
  // Each trial's kind, so the ETA weighs a memory cell's trial (a fresh server each) apart from a latency
  // one; the adaptive rounds are a range on it until they are done.
  const reserves = {
    ...(auto && run.autoSampleSeconds !== null
      ? {
          "auto-sampling": autoSampleReserve({
            budgetSeconds: run.autoSampleSeconds,
            variants: roundVariants,
            cases,
            cells: memory.enabled ? cells : [],
          }),
        }
      : {}),
    ...(rounds
      ? {
          "memory rounds": memoryRoundsReserve({
            budgetSeconds: seqSeconds,
            variants: roundVariants,
            cells,
            plannedTrials: memory.trials,
          }),
        }
      : {}),
  };
  progress.start(
    lPlan.length + mPlan.length + leakTotal + stormTotal,
    [
      ...lPlan.map(trialKind),
      ...mPlan.map(trialKind),
      ...Array.from({ length: leakTotal }, () => "leak"),
      ...Array.from({ length: stormTotal }, () => "storm"),
    ],
    reserves,
  );
  // Adaptive rounds join the progress total as they are planned; a matrix asking for none is done.
  const grown = <T extends object>(trials: T[], reserve: string): T[] => {
    progress.grow(trials.length, trials.map(trialKind), reserve);
    return trials;
  };
  const moreMemory = (): MemoryTrial[] => {
    const guarded = auto?.moreMemory() ?? [];
    if (guarded.length > 0) return grown(guarded, "auto-sampling");
    const next = grown(rounds?.more() ?? [], "memory rounds");
    if (next.length === 0) for (const name of Object.keys(reserves)) progress.settle(name);
    return next;
  };

  const moreLatency = (sampler: NonNullable<typeof auto>) => {
    const next = grown(sampler.moreLatency(), "auto-sampling");
    if (next.length === 0 && !memory.enabled) progress.settle("auto-sampling");
    return next;
  };

  // A target that died on its own is kept in the results (and said at once), never silently replaced.
  const crash = (c: CrashReport, matrix: "latency" | "memory" | "leak" | "storm", aa: boolean) => {
    file.addCrash({ ...c, matrix, ...(aa ? { aa: true } : {}), at: new Date().toISOString() });
    progress.log(`target ${escapeText(c.variant)} died (${exitText(c)}) ${escapeText(c.during)}`);
  };
  // The machine's load over every trial (others' CPU, steal), and --wait-quiet's pauses between rounds.
  const load = createLoadRecorder({
    thresholdCores: config.run.disturbedCores,
    waitQuietSeconds: config.run.waitQuietSeconds,
    log: (line) => progress.log(line),
  });
  try {
    const runClients = driverFor(launch.driver);
    const latencyRun = async (plan: typeof lPlan, tmap: Map<string, TargetSpec>) => {
      if (!latencyFixture || plan.length === 0) return;
      await runLatency({
        more: auto ? () => moreLatency(auto) : undefined,
        protocol,
        launch,
        failFast: run.failFast,
        fixture: latencyFixture,
        workDir,
        targets: tmap,
        plan,
        runClients,
        stopped,
        track,
        signal: abort.signal,
        onTrialStart: (t) =>
          progress.trial(roundLabel(`${t.case} ${t.variant}`, t.trial, latency.trials, isAa(t.variant))),
        onCrash: (c) => crash(c, "latency", isAa(c.variant)),
        beforeTrial: (t) => load.beforeTrial("latency", t.trial, abort.signal),
        onRow: (measured) => {
          const row = { ...measured, load: load.afterTrial() };
          file.addLatency(row, isAa(row.variant));
          progress.done(roundLabel(`${row.case} ${row.variant}`, row.trial, latency.trials, isAa(row.variant)), row.ok);
        },
      });
    };
    const memoryRun = async (plan: typeof mPlan, tmap: Map<string, TargetSpec>) => {
      if (plan.length === 0) return;
      await runMemory({
        more: auto || rounds ? moreMemory : undefined,
        protocol,
        launch,
        memory,
        failFast: run.failFast,
        fixtures: memoryFixtures,
        workDir,
        runDir,
        targets: tmap,
        plan,
        stopped,
        track,
        signal: abort.signal,
        samplesPrefix: "",
        pinning: pinning ?? undefined,
        // Node clients run in a worker thread during memory cells: the sampler owns this thread.
        runClients: launch.driver === "node" ? runClientsInWorker : runClients,
        onTrialStart: (t) =>
          progress.trial(roundLabel(memoryCellLabel(t), t.trial, memory.trials, isAa(t.variant), ADDED)),
        onCrash: (c) => crash(c, "memory", isAa(c.variant)),
        beforeTrial: (t) => load.beforeTrial("memory", t.trial, abort.signal),
        onRow: (measured) => {
          const row = { ...measured, load: load.afterTrial() };
          file.addMemory(row, isAa(row.variant));
          progress.done(roundLabel(memoryCellLabel(row), row.trial, memory.trials, isAa(row.variant), ADDED), row.ok);
        },
      });
    };
    // --attribute: unmeasured profiling trials of each cell and real variant, after the measured rounds.
    const attributionRun = async (intervalBytes: number) => {
      const label = (t: { variant: string; trial: number } & Parameters<typeof memoryCellLabel>[0]) =>
        `attribute ${memoryCellLabel(t)}, ${t.trial === 1 ? "peak" : "total"} profile`;
      const plan = attributionPlan(cells, names);
      progress.grow(plan.length, plan.map(trialKind));
      await runAttribution(
        {
          protocol,
          launch,
          memory,
          failFast: false,
          fixtures: memoryFixtures,
          workDir,
          runDir,
          targets,
          stopped,
          track,
          signal: abort.signal,
          pinning: pinning ?? undefined,
          runClients: launch.driver === "node" ? runClientsInWorker : runClients,
          intervalBytes,
          onTrialStart: (t) => progress.trial(label(t)),
          onCrash: (c) => crash(c, "memory", false),
          onAttribution: (row) => {
            file.addAttribution(row, intervalBytes);
            progress.done(label({ ...row, trial: row.kind === "peak" ? 1 : 2 }), row.ok);
          },
        },
        cells,
        names,
      );
    };
    await latencyRun(lPlan, targets);
    await memoryRun(mPlan, targets);
    if (memory.attribute && memory.enabled && !stopped()) await attributionRun(memory.attribute.intervalBytes);
    if (leakFixture && !stopped()) {
      // The A/A copy does not run here: the leak verdict is per variant, against a fixed threshold.
      const label = (variant: string, cycle: number, of: number) => `leak ${variant}, cycle ${cycle}/${of}`;
      const rows = await runLeak({
        leak,
        clients: memory.clients[0] ?? 1,
        protocol,
        launch,
        fixture: leakFixture,
        workDir,
        targets: launch.targets,
        // As in memory cells: Node clients in a worker thread, so this thread's GC and /proc reads stay prompt.
        runClients: launch.driver === "node" ? runClientsInWorker : runClients,
        stopped,
        track,
        signal: abort.signal,
        onCycleStart: (v, c, of) => progress.trial(label(v, c, of)),
        onCycle: (v, c, of, ok) => progress.done(label(v, c, of), ok),
        onCrash: (c) => crash(c, "leak", false),
      });
      for (const row of rows) file.addLeak(row);
    }
    if (storm.clients.length > 0 && !stopped()) {
      // As in memory cells, the A/A copy runs in every round (rotated with the others): each storm
      // cell gets its noise band.
      const label = (c: { clients: number; scriptBytes: number; variant: string }) =>
        `storm ${c.clients} × ${size(c.scriptBytes)} ${c.variant}`;
      await runStorm({
        storm,
        scriptBytes: memory.scriptBytes,
        memory,
        protocol,
        launch,
        fixtures: stormFixtures,
        workDir,
        runDir,
        targets: roundVariants.map((n) => targets.get(n) as TargetSpec),
        aaVariant: withAa ? aaName : null,
        stopped,
        track,
        signal: abort.signal,
        onLimits: (line) => progress.log(line),
        onCellStart: (c) => progress.trial(trialLabel(label(c), c.trial, storm.trials, isAa(c.variant))),
        onCrash: (c) => crash(c, "storm", isAa(c.variant)),
        onRow: (row) => {
          file.addStorm(row);
          progress.done(trialLabel(label(row), row.trial, storm.trials, isAa(row.variant)), row.ok === row.clients);
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
    await Promise.all([...running].map((t) => t.stop(launch.stopGraceMs)));
    rmSync(workDir, { recursive: true, force: true });
  }

  for (const v of file.results.variants) {
    const runtime = await runtimes.get(v.name);
    if (runtime) v.runtime = runtime;
  }
  // The run's verdicts, per metric and cell, kept with the rows they were judged on.
  if (auto) file.results.autoSample = auto.info();
  file.results.load = {
    thresholdCores: config.run.disturbedCores,
    waitQuietSeconds: config.run.waitQuietSeconds,
    rounds: roundLoads(file.results, config.run.disturbedCores, load.waits()),
  };
  if (rounds) file.results.memoryRounds = rounds.info();
  file.results.verdicts = [
    ...verdictsOf(file.results, guardConfig, config.minEffect),
    ...runStormVerdicts(file.results, guardConfig, config.minEffect),
  ];
  // The reason is kept with the results (a fatal stop too), so `report` can say later why the run ended.
  let results: Results;
  try {
    results = file.finish(new Date().toISOString(), stopReason);
  } catch (e) {
    throw fatal ?? e; // a full disk at the journal is the first cause, results.json failing after it the second
  }
  if (fatal) {
    await renderReport(runDir, results, guardConfig, config.minEffect).catch(() => undefined); // the fatal error is what to report
    throw fatal;
  }
  const { markdown, guard, summary, json } = await renderReport(runDir, results, guardConfig, config.minEffect);
  return { runDir, results, interrupted: stopReason !== null, stopReason, markdown, summary, json, guard };
}
