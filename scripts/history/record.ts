// `history record`: each first-parent commit of a range measured as a paired run against a fixed
// anchor, through the same entry bench uses (runBench with --repo and two --refs: builds and seeded
// templates are cached per checkout), and stored with its ratios to the anchor. Resumable: the
// commits the store already has for this anchor, branch, testbed and configuration are skipped, so
// a killed record continues where it stopped. When the branch's series has another anchor, the new
// anchor is first recorded against the old one: that run links the series.
import { cpus, release, totalmem } from "node:os";
import { join } from "node:path";
import { type BenchConfig, recordedConfig } from "../bench/run/config.js";
import { type BenchIO, type BenchOutcome, runBench } from "../bench/run/run.js";
import { commitInfo, firstParentCommits, resolveCommit } from "../refs/commits.js";
import type { HistoryStore } from "../store/open-store.js";
import { addRun, recordedCommits } from "../store/runs.js";
import type { RunKind } from "../store/tables.js";
import { type TestbedFacts, testbedFingerprint } from "../store/testbed.js";
import { onStopSignals, type StopSignal } from "../util/stop-signals.js";
import { configDigest, runRecord } from "./run-record.js";
import { writeRunTag } from "./run-tag.js";

export interface MeasureContext {
  store: HistoryStore;
  repo: string;
  branch: string;
  /** The bench config of a paired run of `head` against `base` into `out` (the command's flags; `pairs` trials when given). */
  configFor: (base: string, head: string, out: string, pairs?: number) => BenchConfig;
  /** Where run directories go: <cwd>/reports/history/. */
  cwd: string;
  bench: BenchIO;
}

/** This machine as a testbed, the fields results.json records (bench/run/machine.ts). */
export function thisTestbed(): TestbedFacts {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memoryBytes: totalmem(),
    node: process.version,
    kernel: release(),
  };
}

const short = (sha: string) => sha.slice(0, 12);

/** The digest of what a pair of runs measures: the same for every commit of one record. */
export function requestedDigest(ctx: MeasureContext): string {
  return configDigest(recordedConfig(ctx.configFor("BASE", "HEAD", "OUT")));
}

export interface MeasuredRun {
  base: string;
  head: string;
  runDir: string;
  runId: number;
  outcome: BenchOutcome;
}

/** One paired run of `head` against `base` (at `pairs` trials, else the flags'), tagged, stored; its outcome. */
export async function measurePair(
  ctx: MeasureContext,
  kind: RunKind,
  base: string,
  head: string,
  digest: string,
  pairs?: number,
): Promise<MeasuredRun> {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const runDir = join(ctx.cwd, "reports", "history", `${short(base)}-${short(head)}-${stamp}`);
  const outcome = await runBench(ctx.configFor(base, head, runDir, pairs), ctx.bench);
  writeRunTag(runDir, { kind, branch: ctx.branch, configDigest: digest });
  const record = runRecord(outcome.results, {
    kind,
    branch: ctx.branch,
    source: join(runDir, "results.json"),
    commitFacts: (sha) => commitInfo(ctx.repo, sha),
    configDigest: digest,
  });
  const { id } = await addRun(ctx.store, record);
  return { base, head, runDir, runId: id, outcome };
}

export interface RecordPlan {
  anchor: string;
  /** The range's first-parent commits, oldest first (the anchor itself left out). */
  commits: string[];
  /** Those the store already has. */
  done: string[];
  /** The earlier anchor of the branch's series this anchor is first recorded against, when it moved. */
  linkFrom: string | null;
  digest: string;
}

/** What a record will do: resolves the revisions (a RefsError names a bad one) and reads the store. */
export async function planRecord(ctx: MeasureContext, range: string, anchorRev: string): Promise<RecordPlan> {
  const anchor = resolveCommit(ctx.repo, anchorRev);
  const commits = firstParentCommits(ctx.repo, range).filter((c) => c !== anchor);
  const digest = requestedDigest(ctx);
  const fingerprint = testbedFingerprint(thisTestbed());
  const key = { anchorSha: anchor, branch: ctx.branch, testbedFingerprint: fingerprint, configDigest: digest };
  const recorded = await recordedCommits(ctx.store, key);
  const latest = await ctx.store.db
    .selectFrom("run")
    .innerJoin("testbed", "testbed.id", "run.testbed_id")
    .select("run.anchor_sha")
    .where("run.kind", "=", "record")
    .where("run.branch", "=", ctx.branch)
    .where("testbed.fingerprint", "=", fingerprint)
    .where("run.excluded", "=", 0)
    .orderBy("run.id", "desc")
    .executeTakeFirst();
  const previous = latest?.anchor_sha ?? null;
  let linkFrom: string | null = null;
  if (previous !== null && previous !== anchor) {
    const linked = await recordedCommits(ctx.store, { ...key, anchorSha: previous });
    if (!linked.has(anchor)) linkFrom = previous;
  }
  return { anchor, commits, done: commits.filter((c) => recorded.has(c)), linkFrom, digest };
}

/** Records the plan's commits not yet done, in order; stops at a run stopped by a signal. */
export async function recordCommits(
  ctx: MeasureContext,
  plan: RecordPlan,
  log: (line: string) => void,
): Promise<{ measured: MeasuredRun[]; stoppedBy: string | null }> {
  const measured: MeasuredRun[] = [];
  // A stop between two commits' runs ends the record there (a run in progress hears it itself).
  let stop: StopSignal | null = null;
  const off = onStopSignals((signal) => {
    stop ??= signal;
  });
  try {
    return await recordSteps(ctx, plan, log, measured, () => stop);
  } finally {
    off();
  }
}

async function recordSteps(
  ctx: MeasureContext,
  plan: RecordPlan,
  log: (line: string) => void,
  measured: MeasuredRun[],
  stopped: () => StopSignal | null,
): Promise<{ measured: MeasuredRun[]; stoppedBy: string | null }> {
  const todo = plan.commits.filter((c) => !plan.done.includes(c));
  const steps = [
    ...(plan.linkFrom ? [{ base: plan.linkFrom, head: plan.anchor }] : []),
    ...todo.map((c) => ({ base: plan.anchor, head: c })),
  ];
  for (const [i, step] of steps.entries()) {
    const signal = stopped();
    if (signal) return { measured, stoppedBy: signal };
    const link = plan.linkFrom !== null && i === 0;
    log(
      `history: [${i + 1}/${steps.length}] ${short(step.head)} against ${short(step.base)}${link ? " (links the series to the new anchor)" : ""}`,
    );
    const run = await measurePair(ctx, "record", step.base, step.head, plan.digest);
    measured.push(run);
    if (run.outcome.stopReason === "SIGINT" || run.outcome.stopReason === "SIGTERM") {
      return { measured, stoppedBy: run.outcome.stopReason };
    }
  }
  return { measured, stoppedBy: stopped() };
}
