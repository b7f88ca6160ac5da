// Memory cells: a fresh server per trial, sampled from outside in two lanes that never wait for each
// other (RSS from /proc every sampleIntervalMs; heap through the inspector, which cannot answer while
// the server runs native code), plus the server's CPU time over the sampled window. Order: start; forced GC twice and the baseline heap; sampler
// on (an idle window first); C clients connect, take the catch-up, hold the completion chunk
// holdMs, close; sampler off; forced GC twice and the post-GC heap (a "gc" line in the samples
// file); VmHWM read last; stop. Phase marks go into the samples file beside the samples.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ClientsRun, PhaseName } from "../../driver/session-spec.js";
import type { MemoryRow, SessionFigures } from "../../results/schema.js";
import { readVmHwm } from "../../sampler/procfs.js";
import {
  postGcHeap,
  type Sampler,
  type SamplerOptions,
  type SamplerSummary,
  startSampler,
} from "../../sampler/sampler.js";
import { canRestorePriority, IDLE_NICE, setThreadsNice } from "../../server-process/priority.js";
import { redact } from "../../util/redact.js";
import { maxValue, median } from "../../util/stats.js";
import type { FixtureRef } from "../fixtures/fixtures.js";
import { privateCopy } from "../fixtures/fixtures.js";
import { type CellContext, FailFast, reportIfDied, targetOptions, trialQueue } from "../latency/latency.js";
import { afterSequenceFor, type MemoryTrial, memoryTrialId } from "../rounds/plan.js";
import type { MemoryConfig } from "../run/config.js";
import { type EarlyStarts, earlyStarts, type Started } from "../trial/early-start.js";
import { startTarget, type Target } from "../trial/launch.js";
import { type PinningInfo, pinHarness, pinThreads } from "../trial/pinning.js";
import { sessionSpec } from "../trial/sessions.js";
import { type TrialClock, trialClock } from "../trial/trial-timing.js";

/** A running trial server and how to stop tracking it. */
interface TrialServer {
  target: Target;
  untrack: () => void;
}

export interface MemoryContext extends CellContext<MemoryTrial, MemoryRow> {
  memory: Pick<MemoryConfig, "sampleIntervalMs" | "heapIntervalMs">;
  /** Servers started ahead of their trial (filled in by runMemory). */
  starts: EarlyStarts<MemoryTrial, TrialServer>;
  /** The trial after the one running, when the plan already holds it (its server may start early). */
  next: MemoryTrial | null;
  /** Where targets and harness run (run.pinning in results.json). */
  pinning: PinningInfo;
  /**
   * Whether the next trial's server starts as this trial begins, at the lowest priority until its
   * own trial takes it (needs the right to raise a priority back); else once this trial's sampler stopped.
   */
  overlap: boolean;
  /** The previous trial's server stopping: the next trial's sampling starts once it is gone. */
  stopping: Promise<void> | null;
  /** Fixtures by script size. */
  fixtures: Map<number, FixtureRef>;
  runDir: string;
  /** Prefix of samples file names (e.g. "aa-" for the A/A run). */
  samplesPrefix?: string;
  /** --attribute's unmeasured trials: a heap profiler started after the baseline GC, fed every heap reading. */
  profiling?: (t: MemoryTrial, inspector: NonNullable<Target["inspector"]>) => Promise<TrialProfiling>;
}

/** A profiler riding on a trial (bench/memory/attribute.ts): finish() runs once sampling has stopped. */
export interface TrialProfiling {
  onHeap(heapUsed: number): void;
  finish(): Promise<void>;
}

/** RSS samples taken before clients connect (10 x 10 ms by default), with at least two heap samples. */
const IDLE_SAMPLES = 10;
const IDLE_HEAP_SAMPLES = 2;

/** The sampled process's command line (from /proc), recorded so a reader can see what was measured. */
function commandLine(pid: number): string | null {
  try {
    // Redacted before it is cut short, so no part of a --token value reaches the samples file.
    return redact(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ")).slice(0, 300);
  } catch {
    return null;
  }
}

/** The row of a memory trial with nothing measured (ok: false), naming why. */
export function emptyRow(t: MemoryTrial, samplesFile: string | null, error: string): MemoryRow {
  return {
    scriptBytes: t.scriptBytes,
    clients: t.clients,
    mode: t.mode,
    variant: t.variant,
    trial: t.trial,
    ok: false,
    baselineHeapBytes: null,
    peakHeapBytes: null,
    peakRssBytes: null,
    hwmRssBytes: null,
    postGcHeapBytes: null,
    retainedHeapBytes: null,
    bytesThroughCompletion: null,
    completionMsMax: null,
    probeMaxMs: null,
    probeMedianMs: null,
    sampleIntervalMs: null,
    heapIntervalMs: null,
    rssSamples: null,
    heapSamples: null,
    heapGapMaxMs: null,
    targetCpuMs: null,
    samplesFile,
    error,
  };
}

/**
 * Marks a phase in the samples once every client reached it ("connect" and "first-chunk": once the
 * first one did), so the marks read as moments of the whole cell.
 */
function phaseMarker(sampler: Sampler, clients: number): (index: number, phase: PhaseName) => void {
  const counts = new Map<PhaseName, number>();
  return (_index, phase) => {
    const n = (counts.get(phase) ?? 0) + 1;
    counts.set(phase, n);
    if (phase === "open") return;
    if (phase === "connect" || phase === "first-chunk" ? n === 1 : n === clients) sampler.mark(phase);
  };
}

function maxOf(xs: number[]): number | null {
  return xs.length ? maxValue(xs) : null;
}

/** Figures of one memory trial from its sessions, heap readings and sampler summary. */
export function memoryRow(
  t: MemoryTrial,
  samplesFile: string,
  rows: SessionFigures[],
  baselineHeap: number,
  postGc: number | null,
  summary: SamplerSummary,
  extraError: string | null,
): MemoryRow {
  const probes = rows.map((r) => r.probeMs).filter((x): x is number => x !== null);
  const completions = rows.map((r) => r.completionMs).filter((x): x is number => x !== null);
  const sessionErrors = rows.filter((r) => !r.ok).map((r, i) => `client ${i + 1}: ${r.error}`);
  const errors = [...sessionErrors, summary.error, extraError].filter((e): e is string => !!e);
  const ok =
    rows.length === t.clients && sessionErrors.length === 0 && postGc !== null && !summary.error && !extraError;
  return {
    ...emptyRow(t, samplesFile, ""),
    ok,
    baselineHeapBytes: baselineHeap,
    peakHeapBytes: summary.peakHeapBytes,
    peakRssBytes: summary.peakRssBytes,
    hwmRssBytes: summary.hwmRssBytes,
    postGcHeapBytes: postGc,
    retainedHeapBytes: postGc === null ? null : postGc - baselineHeap,
    bytesThroughCompletion: rows.reduce((sum, r) => sum + r.bytes, 0),
    completionMsMax: maxOf(completions),
    probeMaxMs: maxOf(probes),
    probeMedianMs: probes.length ? median(probes) : null,
    sampleIntervalMs: summary.interval,
    heapIntervalMs: summary.heapInterval,
    rssSamples: summary.rssSamples,
    heapSamples: summary.heapSamples,
    heapGapMaxMs: summary.heapGapMaxMs,
    targetCpuMs: summary.targetCpuMs,
    rssSplit: summary.rssSplit,
    error: errors.length ? errors.join("; ") : null,
  };
}

/**
 * After the sampler stopped: the heap after a forced full GC (`onPostGc` records it) and VmHWM folded
 * into the sampled high-water mark (where the sampler read one: not through ps). A dead target gives
 * neither; a failed GC is an error, not a throw.
 */
export async function closingHeap(
  target: Pick<Target, "alive" | "pid">,
  inspector: NonNullable<Target["inspector"]>,
  sampledHwm: number | null,
  onPostGc?: (heapUsed: number) => void,
): Promise<{ postGc: number | null; hwm: number | null; error: string | null }> {
  let postGc: number | null = null;
  let hwm = sampledHwm;
  let error: string | null = null;
  if (target.alive()) {
    try {
      postGc = await postGcHeap(inspector);
      onPostGc?.(postGc);
      if (hwm !== null) hwm = Math.max(hwm, readVmHwm(target.pid) ?? 0);
    } catch (e) {
      error = `post-GC heap: ${(e as Error).message}`;
    }
  }
  return { postGc, hwm, error };
}

/** Starts sampling a cell's target at the memory matrix's lane intervals, into file. */
export function startCellSampler(
  memory: Pick<MemoryConfig, "sampleIntervalMs" | "heapIntervalMs">,
  target: Pick<Target, "pid">,
  inspector: NonNullable<Target["inspector"]>,
  file: string,
  origin: number,
  observers: Pick<SamplerOptions, "onRss" | "onHeap"> = {},
): Promise<Sampler> {
  return startSampler({
    pid: target.pid,
    inspector,
    intervalMs: memory.sampleIntervalMs,
    heapIntervalMs: memory.heapIntervalMs ?? undefined,
    // A trial after a trial: the next one's RSS lane thread starts now, off its idle window.
    spareLane: true,
    file,
    origin,
    ...observers,
  });
}

/** One trial, with where its wall time went (phaseMs). */
async function runTrial(ctx: MemoryContext, t: MemoryTrial): Promise<MemoryRow> {
  const clock = trialClock();
  const ahead = { early: false };
  const row = await measureTrial(ctx, t, clock, ahead);
  return { ...row, phaseMs: clock.done(), startedAhead: ahead.early };
}

async function measureTrial(
  ctx: MemoryContext,
  t: MemoryTrial,
  clock: TrialClock,
  ahead: { early: boolean },
): Promise<MemoryRow> {
  const samplesFile = `samples/${memoryTrialId(t, ctx.samplesPrefix)}.jsonl`;
  const fixture = ctx.fixtures.get(t.scriptBytes);
  if (!fixture) return emptyRow(t, null, `no fixture or target for ${memoryTrialId(t)}`);
  clock.lap("startWait");
  const { server, error, early } = await takeServer(ctx, t, clock);
  ahead.early = early;
  if (!server) return { ...emptyRow(t, null, error ?? "no target"), startFailed: true };
  // The next trial's server starts now, at the lowest priority, while this one is measured (overlap).
  // Started later (once sampling runs), its start-up moved into the measured part: side by side the
  // clients' phase grew by what the idle window lost, and the trial took as long.
  if (ctx.overlap && ctx.next) ctx.starts.ahead(ctx.next);
  const { target } = server;
  try {
    const inspector = target.inspector;
    if (!inspector) return emptyRow(t, null, `target ${t.variant}: no inspector`);
    const origin = performance.now();
    clock.lap("baselineGc");
    const baselineHeap = await postGcHeap(inspector);
    const profiling = ctx.profiling ? await ctx.profiling(t, inspector) : null;
    // The previous trial's server is gone before this one is sampled: the measured process is alone.
    clock.lap("stopWait");
    await ctx.stopping;
    clock.lap("idle");
    // A short idle window before clients connect: the timeline shows the resting level, and the
    // cadence figures include the sampler's idle rhythm, not only the busy catch-up.
    let idleRss = 0;
    let idleHeap = 0;
    let idleDone: () => void = () => undefined;
    const idle = new Promise<void>((resolve) => {
      idleDone = resolve;
    });
    const sampler = await startCellSampler(ctx.memory, target, inspector, join(ctx.runDir, samplesFile), origin, {
      onRss: () => {
        if (++idleRss >= IDLE_SAMPLES && idleHeap >= IDLE_HEAP_SAMPLES) idleDone();
      },
      onHeap: (h) => {
        profiling?.onHeap(h.heapUsed);
        if (++idleHeap >= IDLE_HEAP_SAMPLES && idleRss >= IDLE_SAMPLES) idleDone();
      },
    });
    sampler.mark("baseline", { heapUsed: baselineHeap, pid: target.pid, command: commandLine(target.pid) });
    void sampler.ended.then(() => idleDone());
    await idle;
    clock.lap("clients");
    const spec = sessionSpec(ctx.protocol, target, afterSequenceFor(t.mode, fixture.meta), ctx.protocol.holdMs);
    let rows: SessionFigures[] = [];
    let loopLag: ClientsRun["loopLag"] = null;
    let extraError: string | null = null;
    try {
      ({ rows, loopLag = null } = await ctx.runClients(t.clients, spec, phaseMarker(sampler, t.clients)));
    } catch (e) {
      extraError = `driver: ${(e as Error).message}`;
    }
    // Sampling ends before the forced GC: a full GC holds the target's inspector for a while, and
    // those stalls are ours, not the target's, so they must not count in the cadence figures.
    clock.lap("samplerStop");
    const sampled = await sampler.stop();
    await profiling?.finish();
    // Nothing of this trial is sampled any more: the next trial's server may start now.
    if (!ctx.overlap && ctx.next) ctx.starts.ahead(ctx.next);
    clock.lap("postGc");
    const closing = await closingHeap(target, inspector, sampled.hwmRssBytes, (heapUsed) =>
      appendFileSync(
        join(ctx.runDir, samplesFile),
        `${JSON.stringify({ t: performance.now() - origin, phase: "gc", heapUsed })}\n`,
      ),
    );
    const { postGc, hwm } = closing;
    extraError ??= closing.error;
    const summary = { ...sampled, hwmRssBytes: hwm };
    if (rows.some((r) => !r.ok) || postGc === null) {
      if (await reportIfDied(ctx, target, t.variant, memoryTrialId(t))) extraError = target.describeExit();
    }
    return { ...memoryRow(t, samplesFile, rows, baselineHeap, postGc, summary, extraError), clientLoopLagMs: loopLag };
  } catch (e) {
    const died = await reportIfDied(ctx, target, t.variant, memoryTrialId(t));
    const why = died ? target.describeExit() : (e as Error).message;
    return emptyRow(t, null, why);
  } finally {
    // Stopping overlaps the next trial's start-up and baseline GC; that trial waits for it before sampling.
    clock.lap("stop");
    ctx.stopping = stopServer(server);
  }
}

async function stopServer(server: TrialServer): Promise<void> {
  await server.target.stop();
  server.untrack();
}

/**
 * The trial's server (started ahead, else now), given the normal priority back and pinned; copy and
 * start record where its start-up went (for a server started ahead: during the previous trial).
 */
async function takeServer(
  ctx: MemoryContext,
  t: MemoryTrial,
  clock: TrialClock,
): Promise<{ server: TrialServer | null; error: string | null; early: boolean }> {
  const { started, early } = ctx.starts.take(t);
  const { server, error, copyMs, startMs } = await started;
  clock.record("copy", copyMs);
  clock.record("start", startMs);
  if (!server) return { server, error, early };
  const pid = server.target.pid;
  if (ctx.overlap) setThreadsNice(pid, 0);
  if (ctx.pinning.enabled && ctx.pinning.target) pinThreads(pid, ctx.pinning.target);
  return { server, error, early };
}

/** A trial's fresh server: the fixture (a private copy for a foreign target), started, tracked (pinned once taken). */
async function startServer(ctx: MemoryContext, t: MemoryTrial): Promise<Started<TrialServer>> {
  const fixture = ctx.fixtures.get(t.scriptBytes);
  const spec = ctx.targets.get(t.variant);
  if (!fixture || !spec)
    return { server: null, error: `no fixture or target for ${memoryTrialId(t)}`, copyMs: 0, startMs: 0 };
  const t0 = performance.now();
  let t1 = t0;
  try {
    // The bundled server opens its fixture read-only (fixtures/meta.ts openFixture) and never writes
    // it: it needs no copy. A foreign target might write to its store, so it gets its own.
    const state =
      spec.kind === "bundled" ? { db: fixture.path, token: null } : privateCopy(fixture, spec, ctx.workDir, t.variant);
    t1 = performance.now();
    // Ready once it upgrades a WebSocket (no warm-up session: it would change the memory measured).
    const nice = ctx.overlap ? IDLE_NICE : undefined;
    const target = await startTarget(spec, { ...targetOptions(ctx, state, true), warmUpSession: null, nice });
    const untrack = ctx.track(target);
    // Threads a wrapper or the runtime started before the spawn's priority took hold, and a foreign
    // target's listening process: all at the lowest priority until the trial takes the server.
    if (nice !== undefined) setThreadsNice(target.pid, nice);
    return { server: { target, untrack }, error: null, copyMs: t1 - t0, startMs: performance.now() - t1 };
  } catch (e) {
    return { server: null, error: (e as Error).message, copyMs: t1 - t0, startMs: performance.now() - t1 };
  }
}

export async function runMemory(
  ctx: Omit<MemoryContext, "starts" | "next" | "pinning" | "overlap" | "stopping"> & {
    pinning?: PinningInfo;
    overlap?: boolean;
  },
): Promise<void> {
  const pinning = ctx.pinning ?? { enabled: false };
  const full: MemoryContext = {
    ...ctx,
    pinning,
    overlap: ctx.overlap ?? canRestorePriority(),
    stopping: null,
    next: null,
    starts: earlyStarts<MemoryTrial, TrialServer>(
      (t) => startServer(full, t),
      async (s) => {
        await s.target.stop();
        s.untrack();
      },
    ),
  };
  const upcoming: { next: MemoryTrial | null } = { next: null };
  const restore = pinHarness(pinning);
  try {
    for (const t of trialQueue(full, upcoming)) {
      full.next = upcoming.next;
      await full.beforeTrial?.(t);
      const row = await runTrial(full, t);
      if (full.stopped() && !row.ok) return; // interrupted mid-trial: not a result
      full.onRow(row);
      if (!row.ok && full.failFast) {
        throw new FailFast(`--fail-fast: ${memoryTrialId(t)} failed: ${row.error}`);
      }
    }
  } finally {
    await full.stopping;
    await full.starts.discard();
    restore();
  }
}
