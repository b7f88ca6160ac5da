// A bench run, start to end: fixtures, plan, latency cells, memory cells, the A/A run when asked,
// results on disk, report. Ctrl-C/SIGTERM stops every target, keeps what finished and reports it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FIXTURE_DATA_DIR } from "../../fixtures/options.js";
import type { Results, RunFixture, RunInfo, VariantInfo } from "../results.js";
import { isAlive } from "../sampler/procfs.js";
import type { BenchConfig, TargetSpec } from "./config.js";
import { driverFor, requireK6, runClientsInWorker } from "./drivers.js";
import { ensureFixture, type FixtureRef, userFixture } from "./fixtures.js";
import { FailFast, runLatency } from "./latency.js";
import { runDirName, runInfo } from "./machine.js";
import { runMemory } from "./memory.js";
import { latencyPlan, memoryCells, memoryPlan } from "./plan.js";
import { createProgress, type Progress, trialLabel } from "./progress.js";
import { renderReport } from "./report.js";
import { ResultsFile } from "./results-file.js";
import { killAllTargetsNow, SERVER_MAIN, type Target } from "./target.js";

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
  guard: { pass: boolean; lines: string[] } | null;
}

const AA_NAMES = ["A1", "A2"] as const;
const WORK_PREFIX = "catchup-bench-";

/**
 * Removes the fixture copies of runs whose harness died without cleaning up (SIGKILL): their work
 * directories are named after the harness pid.
 */
export function sweepStaleWorkDirs(dir = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${WORK_PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || isAlive(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}

export function variantInfos(targets: TargetSpec[]): VariantInfo[] {
  return targets.map((t, i) => ({
    name: t.name,
    kind: t.kind,
    command:
      t.kind === "bundled"
        ? `node --inspect=127.0.0.1:0 ${SERVER_MAIN} --db {db} --port 0 --delivery ${t.delivery} --exit-with-parent`
        : t.command,
    role: i === 0 ? "baseline" : "candidate",
  }));
}

function sizeLabel(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} B`;
}

/** "memory 1 KiB × 10 resume legacy": a memory cell and variant, for progress labels. */
function memoryCellLabel(t: { scriptBytes: number; clients: number; mode: string; variant: string }): string {
  return `memory ${sizeLabel(t.scriptBytes)} × ${t.clients} ${t.mode} ${t.variant}`;
}

/** Runs the bench described by config. Throws FixtureError/TargetError/DriverError for fatal problems. */
export async function runBench(config: BenchConfig, io: BenchIO): Promise<BenchOutcome> {
  const progress = io.progress ?? createProgress();
  if (config.driver === "k6") requireK6();
  const fixturesDir = resolve(config.fixturesDir ?? join(io.root, FIXTURE_DATA_DIR));
  const build = (bytes: number): FixtureRef =>
    ensureFixture(fixturesDir, config.projects, bytes, config.events, config.seed, (path, why) =>
      progress.log(
        `building fixture ${path} (${config.projects} projects × ${sizeLabel(bytes)}, ${config.events} events; ${why})`,
      ),
    );
  const latencyFixture = config.latency ? (config.fixture ? userFixture(config.fixture) : build(1024)) : null;
  const memoryFixtures = new Map<number, FixtureRef>();
  if (config.memory) for (const b of config.scriptBytes) memoryFixtures.set(b, build(b));

  const runDir = resolve(config.out ?? join(io.root, "reports", runDirName()));
  mkdirSync(runDir, { recursive: true });
  sweepStaleWorkDirs();
  const workDir = mkdtempSync(join(tmpdir(), `${WORK_PREFIX}${process.pid}-`));
  const resolvedConfig = {
    ...config,
    out: runDir,
    fixture: latencyFixture?.path ?? null,
    memoryFixtures: Object.fromEntries([...memoryFixtures].map(([b, f]) => [b, f.path])),
  };
  const fixtureShape = ({ meta }: FixtureRef): RunFixture => ({
    projects: meta.projects,
    events: meta.events,
    scriptBytesMin: meta.scriptBytesMin,
    scriptBytesMax: meta.scriptBytesMax,
  });
  const info: RunInfo = {
    ...runInfo(resolvedConfig, io.root),
    projectRoot: resolve(io.root),
    fixtures: {
      latency: latencyFixture ? fixtureShape(latencyFixture) : null,
      memory: [...memoryFixtures.values()].map(fixtureShape),
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
  const interrupt = (reason: string) => {
    if (stopReason !== null) {
      // A second signal: do not wait for anything.
      killAllTargetsNow();
      process.exit(130);
    }
    stopReason = reason;
    progress.log(`${reason}: stopping targets, keeping finished results`);
    for (const t of running) void t.stop(1000);
  };
  const onSigint = () => interrupt("SIGINT");
  const onSigterm = () => interrupt("SIGTERM");
  if (io.handleSignals) {
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigterm);
  }

  const targets = new Map(config.targets.map((t) => [t.name, t]));
  const baseline = config.targets[0] as TargetSpec;
  const aaTargets = new Map<string, TargetSpec>(AA_NAMES.map((n) => [n, { ...baseline, name: n }]));
  const names = config.targets.map((t) => t.name);
  const lPlan = config.latency ? latencyPlan(config.cases, names, config.trials) : [];
  const cells = memoryCells(config.scriptBytes, config.clients, config.memoryModes);
  const mPlan = config.memory ? memoryPlan(cells, names, config.memoryTrials) : [];
  const aaL = config.aa && config.latency ? latencyPlan(config.cases, [...AA_NAMES], config.trials) : [];
  const aaM = config.aa && config.memory ? memoryPlan(cells, [...AA_NAMES], config.memoryTrials) : [];
  progress.start(lPlan.length + aaL.length + mPlan.length + aaM.length);

  try {
    const runClients = driverFor(config.driver);
    const latencyRun = async (plan: typeof lPlan, tmap: Map<string, TargetSpec>, aa: boolean) => {
      if (!latencyFixture || plan.length === 0) return;
      await runLatency({
        config,
        fixture: latencyFixture,
        workDir,
        targets: tmap,
        plan,
        runClients,
        stopped,
        track,
        onTrialStart: (t) => progress.trial(trialLabel(`${t.case} ${t.variant}`, t.trial, config.trials, aa)),
        onRow: (row) => {
          file.addLatency(row, aa);
          progress.done(trialLabel(`${row.case} ${row.variant}`, row.trial, config.trials, aa), row.ok);
        },
      });
    };
    const memoryRun = async (plan: typeof mPlan, tmap: Map<string, TargetSpec>, aa: boolean) => {
      if (plan.length === 0) return;
      await runMemory({
        config,
        fixtures: memoryFixtures,
        workDir,
        runDir,
        targets: tmap,
        plan,
        stopped,
        track,
        samplesPrefix: aa ? "aa-" : "",
        // Node clients run in a worker thread during memory cells: the sampler owns this thread.
        runClients: config.driver === "node" ? runClientsInWorker : runClients,
        onTrialStart: (t) => progress.trial(trialLabel(memoryCellLabel(t), t.trial, config.memoryTrials, aa)),
        onRow: (row) => {
          file.addMemory(row, aa);
          progress.done(trialLabel(memoryCellLabel(row), row.trial, config.memoryTrials, aa), row.ok);
        },
      });
    };
    await latencyRun(lPlan, targets, false);
    await memoryRun(mPlan, targets, false);
    await latencyRun(aaL, aaTargets, true);
    await memoryRun(aaM, aaTargets, true);
  } catch (e) {
    // --fail-fast ends the run like an interrupt; anything else is fatal, after the results are kept.
    if (!(e instanceof FailFast)) fatal = e as Error;
    stopReason = (e as Error).message;
  } finally {
    progress.stop();
    if (io.handleSignals) {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
    }
    await Promise.all([...running].map((t) => t.stop(1000)));
    rmSync(workDir, { recursive: true, force: true });
  }

  const results = file.finish(new Date().toISOString(), stopReason !== null);
  if (fatal) throw fatal;
  const { markdown, guard } = await renderReport(runDir, results, config);
  return { runDir, results, interrupted: stopReason !== null, stopReason, markdown, guard };
}
