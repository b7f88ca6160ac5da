// Storm cells: per script size and client count, per variant (rotated order), a fresh server; its
// limits read and stated; sampled like a memory cell (RSS and heap lanes, VmHWM, post-GC heap after
// every client closed); N clients connect over --storm-ramp-ms, resume (or take a cold snapshot),
// hold the completion chunk, close. Each session has its own timeout, so a storm ends by itself.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type SessionSpec, subscribePayloadFor } from "../../driver/session-spec.js";
import type { StormRow } from "../../results/storm-record.js";
import { postGcHeap, type Sampler } from "../../sampler/sampler.js";
import { caughtUpTimeline, classifyFailure, stormFigures, stormTimeline } from "../../storm/figures.js";
import { runStormClients } from "../../storm/fleet.js";
import { checkStormLimits, describeLimits, readLimits, StormLimitError } from "../../storm/limits.js";
import { stormRow } from "../../storm/row.js";
import { maxValue } from "../../util/stats.js";
import { type FixtureRef, privateCopy } from "../fixtures/fixtures.js";
import { type CrashReport, reportIfDied, targetOptions } from "../latency/latency.js";
import { closingHeap, startCellSampler } from "../memory/memory.js";
import { afterSequenceFor, rotation } from "../rounds/plan.js";
import type { MemoryConfig, ProtocolConfig, StormConfig, TargetSpec, TargetsConfig } from "../run/config.js";
import { startTarget, type Target } from "../trial/launch.js";
import { type SessionServer, sessionSpec } from "../trial/sessions.js";

export interface StormCell {
  scriptBytes: number;
  clients: number;
  variant: string;
  trial: number;
}

export interface StormContext {
  storm: StormConfig;
  /** Script sizes of the storm cells (the memory cells' sizes). */
  scriptBytes: readonly number[];
  /** The sampler's lanes, as the memory cells run them. */
  memory: Pick<MemoryConfig, "sampleIntervalMs" | "heapIntervalMs">;
  protocol: ProtocolConfig;
  launch: TargetsConfig;
  fixtures: Map<number, FixtureRef>;
  workDir: string;
  runDir: string;
  /** Every variant a round runs, the A/A copy included when the run has one. */
  targets: TargetSpec[];
  /** The A/A copy's name among `targets`, or null. */
  aaVariant?: string | null;
  stopped: () => boolean;
  track: (target: Target) => () => void;
  signal?: AbortSignal;
  onCellStart?: (cell: StormCell) => void;
  onRow: (row: StormRow) => void;
  onCrash?: (crash: CrashReport) => void;
  /** The limits line of each cell, before its storm starts. */
  onLimits?: (line: string) => void;
}

/** Every storm cell in run order: sizes, then client counts, then trials, variants rotated per trial. */
export function stormPlan(
  scriptBytes: readonly number[],
  clients: readonly number[],
  variants: readonly string[],
  trials: number,
): StormCell[] {
  const plan: StormCell[] = [];
  let round = 0;
  for (const b of scriptBytes)
    for (const n of clients)
      for (let trial = 1; trial <= trials; trial++, round++)
        for (const variant of rotation(variants, round)) plan.push({ scriptBytes: b, clients: n, variant, trial });
  return plan;
}

/**
 * A storm client's session: the run's protocol settings with the storm's own deadline. Not the
 * bench's --trial-timeout-ms: a storm's clients share the server and finish together, so every one of
 * them takes about as long as the whole storm.
 */
export function stormSessionSpec(
  ctx: Pick<StormContext, "storm" | "protocol">,
  server: SessionServer,
  after: number | null,
): SessionSpec {
  return { ...sessionSpec(ctx.protocol, server, after, ctx.protocol.holdMs), timeoutMs: ctx.storm.timeoutMs };
}

export function stormCellId(c: StormCell): string {
  return `storm-${c.scriptBytes}-${c.clients}-${c.variant}-t${c.trial}`.replace(/[^A-Za-z0-9._-]/g, "_");
}

export async function runStorm(ctx: StormContext): Promise<void> {
  const plan = stormPlan(
    ctx.scriptBytes,
    ctx.storm.clients,
    ctx.targets.map((t) => t.name),
    ctx.storm.trials,
  );
  for (const cell of plan) {
    if (ctx.stopped()) return;
    ctx.onCellStart?.(cell);
    const row = await runCell(ctx, cell);
    if (ctx.stopped() && row.ok < row.clients) return; // interrupted mid-storm: not a result
    ctx.onRow(row);
  }
}

/** The row's fixed part: the cell and the storm's settings. */
function stormBase(ctx: StormContext, cell: StormCell) {
  return {
    variant: cell.variant,
    clients: cell.clients,
    scriptBytes: cell.scriptBytes,
    rampMs: ctx.storm.rampMs,
    resumeRatio: ctx.storm.resumeRatio,
    trial: cell.trial,
    sessionTimeoutMs: ctx.storm.timeoutMs,
    ...(cell.variant === ctx.aaVariant ? { aa: true as const } : {}),
  };
}
type StormBase = ReturnType<typeof stormBase>;

async function runCell(ctx: StormContext, cell: StormCell): Promise<StormRow> {
  const base = stormBase(ctx, cell);
  const fixture = ctx.fixtures.get(cell.scriptBytes);
  const spec = ctx.targets.find((t) => t.name === cell.variant);
  if (!fixture || !spec) return stormRow(base, null, { error: `no fixture or target for ${stormCellId(cell)}` });
  let target: Target;
  try {
    target = await startTarget(spec, {
      ...targetOptions(ctx, privateCopy(fixture, spec, ctx.workDir, `storm-${cell.variant}`), true),
      warmUpSession: null,
    });
  } catch (e) {
    return stormRow(base, null, { error: (e as Error).message });
  }
  const untrack = ctx.track(target);
  try {
    return await measureStorm(ctx, cell, base, fixture, target);
  } catch (e) {
    if (e instanceof StormLimitError) throw e;
    const died = await reportIfDied(ctx, target, cell.variant, stormCellId(cell));
    return stormRow(base, null, { error: died ? target.describeExit() : (e as Error).message });
  } finally {
    await target.stop(ctx.launch.stopGraceMs);
    untrack();
  }
}

/** The target's limits, stated; throws StormLimitError when they cannot take the storm. */
function stormLimits(ctx: StormContext, cell: StormCell, target: Target): string {
  const limits = readLimits(target.pid, Number(new URL(target.url).port) || null);
  const limitsLine = describeLimits(limits);
  ctx.onLimits?.(`storm ${cell.clients} × ${cell.variant}: ${limitsLine}`);
  const refusal = checkStormLimits(cell.clients, ctx.storm.rampMs, limits);
  if (refusal) throw new StormLimitError(refusal);
  return limitsLine;
}

type StormRun = Awaited<ReturnType<typeof runStormClients>>;

/** The storm itself: the clients connect over the ramp, resume or take a snapshot, and close. */
async function driveStorm(
  ctx: StormContext,
  cell: StormCell,
  target: Target,
  fixture: FixtureRef,
  sampler: Sampler,
): Promise<{ run: StormRun | null; driverError: string | null }> {
  const resume = stormSessionSpec(ctx, target, afterSequenceFor("memory", fixture.meta));
  const snapshotPayload = subscribePayloadFor(
    ctx.protocol.subscribePayload,
    afterSequenceFor("snapshot", fixture.meta),
  );
  sampler.mark("connect");
  let run: StormRun | null = null;
  let driverError: string | null = null;
  try {
    run = await runStormClients({
      clients: cell.clients,
      rampMs: ctx.storm.rampMs,
      resumeRatio: ctx.storm.resumeRatio,
      spec: resume,
      snapshotPayload,
    });
  } catch (e) {
    driverError = `driver: ${(e as Error).message}`;
  }
  sampler.mark("close");
  return { run, driverError };
}

/** The storm's time axis in the samples file: caught-up clients by time, for the report's chart. */
function writeTimeline(path: string, run: StormRun, origin: number, postGc: number | null): StormRow["timeline"] {
  const shift = run.startedAtEpochMs - performance.timeOrigin - origin;
  const lines = caughtUpTimeline(run.sessions).map(([t, n]) =>
    JSON.stringify({ t: t + shift, phase: "caught-up", clients: n }),
  );
  const gc = postGc === null ? [] : [JSON.stringify({ t: performance.now() - origin, phase: "gc", heapUsed: postGc })];
  appendFileSync(path, [...lines, ...gc].map((l) => `${l}\n`).join(""));
  return stormTimeline(rssSince(path, shift), caughtUpTimeline(run.sessions));
}

/** The clients' failure comes first: a timed-out post-GC read after it is usually its consequence. */
function withClientFailure(error: string | null, sessions: StormRun["sessions"], failed: number, clients: number) {
  const bad = sessions.findIndex((s) => !s.ok);
  const firstBad = sessions[bad];
  if (!firstBad) return error;
  const what = `${failed} of ${clients} clients failed (first: client ${bad + 1}, connecting at ${Math.round(firstBad.startMs)} ms: ${classifyFailure(firstBad.error)}: ${firstBad.error})`;
  return error ? `${what}; ${error}` : what;
}

/** A started target's storm: limits, baseline GC, sampling around the clients, the closing heap. */
async function measureStorm(
  ctx: StormContext,
  cell: StormCell,
  base: StormBase,
  fixture: FixtureRef,
  target: Target,
): Promise<StormRow> {
  const samplesFile = `samples/${stormCellId(cell)}.jsonl`;
  const limitsLine = stormLimits(ctx, cell, target);
  const inspector = target.inspector;
  if (!inspector) return stormRow(base, null, { error: `target ${cell.variant}: no inspector`, limits: limitsLine });
  const origin = performance.now();
  await postGcHeap(inspector);
  const sampler = await startCellSampler(ctx.memory, target, inspector, join(ctx.runDir, samplesFile), origin);
  const { run, driverError } = await driveStorm(ctx, cell, target, fixture, sampler);
  const sampled = await sampler.stop();
  const closing = await closingHeap(target, inspector, sampled.hwmRssBytes);
  const { postGc, hwm } = closing;
  const sessions = run?.sessions ?? [];
  const figures = stormFigures(cell.clients, sessions);
  const timeline = run ? writeTimeline(join(ctx.runDir, samplesFile), run, origin, postGc) : undefined;
  let error = withClientFailure(
    driverError ?? closing.error ?? sampled.error ?? null,
    sessions,
    figures.failed,
    cell.clients,
  );
  if (figures.failed > 0 || postGc === null) {
    if (await reportIfDied(ctx, target, cell.variant, stormCellId(cell))) error = target.describeExit();
  }
  const probes = run?.probeMs.length ? maxValue(run.probeMs) : null;
  return stormRow(base, figures, {
    peakHeapBytes: sampled.peakHeapBytes,
    peakRssBytes: sampled.peakRssBytes,
    hwmRssBytes: hwm,
    postGcHeapBytes: postGc,
    probeMaxMs: probes,
    driverLoopLagMs: run?.loopLag.p99 ?? null,
    driverWorkers: run?.workers,
    limits: limitsLine,
    samplesFile,
    timeline,
    error,
  });
}

/** RSS samples of a samples file as [ms since the storm began, bytes] (shift: the storm's start in file time). */
function rssSince(path: string, shift: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.includes('"rss"')) continue;
    try {
      const s = JSON.parse(line) as { t: number; rss?: number };
      if (typeof s.rss === "number") out.push([s.t - shift, s.rss]);
    } catch {
      // a torn line: not a sample
    }
  }
  return out;
}
