// Memory cells: a fresh server per trial, sampled from outside in two lanes that never wait for each
// other (RSS from /proc every sampleIntervalMs; heap through the inspector, which cannot answer while
// the server runs native code), plus the server's CPU time over the sampled window. Order: start; forced GC twice and the baseline heap; sampler
// on (an idle window first); C clients connect, take the catch-up, hold the completion chunk
// holdMs, close; sampler off; forced GC twice and the post-GC heap (a "gc" line in the samples
// file); VmHWM read last; stop. Phase marks go into the samples file beside the samples.
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { redact } from "../redact.js";
import type { MemoryRow, SessionFigures } from "../results.js";
import { readVmHwm } from "../sampler/procfs.js";
import { postGcHeap, type Sampler, type SamplerSummary, startSampler } from "../sampler/sampler.js";
import { median } from "../stats.js";
import type { FixtureRef } from "./fixtures.js";
import { privateCopy } from "./fixtures.js";
import { type CellContext, crashOf, exitedWithin, FailFast, targetOptions, trialQueue } from "./latency.js";
import { afterSequenceFor, type MemoryTrial, memoryTrialId } from "./plan.js";
import { type ClientsRun, type PhaseName, sessionSpec } from "./sessions.js";
import { startTarget, type Target } from "./target.js";

export interface MemoryContext extends CellContext<MemoryTrial, MemoryRow> {
  /** Fixtures by script size. */
  fixtures: Map<number, FixtureRef>;
  runDir: string;
  /** Prefix of samples file names (e.g. "aa-" for the A/A run). */
  samplesPrefix?: string;
}

const GC_TIMEOUT_MS = 10_000;
/** RSS samples taken before clients connect (20 x 10 ms by default), with at least two heap samples. */
const IDLE_SAMPLES = 20;
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
  return xs.length ? Math.max(...xs) : null;
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
    error: errors.length ? errors.join("; ") : null,
  };
}

/**
 * After the sampler stopped: the heap after a forced full GC (`onPostGc` records it) and VmHWM folded
 * into the sampled high-water mark. A dead target gives neither; a failed GC is an error, not a throw.
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
      postGc = await postGcHeap(inspector, { timeoutMs: GC_TIMEOUT_MS });
      onPostGc?.(postGc);
      hwm = Math.max(hwm ?? 0, readVmHwm(target.pid) ?? 0) || hwm;
    } catch (e) {
      error = `post-GC heap: ${(e as Error).message}`;
    }
  }
  return { postGc, hwm, error };
}

async function runTrial(ctx: MemoryContext, t: MemoryTrial): Promise<MemoryRow> {
  const samplesFile = `samples/${memoryTrialId(t, ctx.samplesPrefix)}.jsonl`;
  const fixture = ctx.fixtures.get(t.scriptBytes);
  const spec = ctx.targets.get(t.variant);
  if (!fixture || !spec) return emptyRow(t, null, `no fixture or target for ${memoryTrialId(t)}`);
  let target: Target;
  try {
    // Ready once it upgrades a WebSocket (no warm-up session: it would change the memory measured).
    target = await startTarget(spec, {
      ...targetOptions(ctx, privateCopy(fixture, ctx.workDir, t.variant), true),
      warmUpSession: null,
    });
  } catch (e) {
    return { ...emptyRow(t, null, (e as Error).message), startFailed: true };
  }
  const untrack = ctx.track(target);
  try {
    const inspector = target.inspector;
    if (!inspector) return emptyRow(t, null, `target ${t.variant}: no inspector`);
    const origin = performance.now();
    const baselineHeap = await postGcHeap(inspector, { timeoutMs: GC_TIMEOUT_MS });
    // A short idle window before clients connect: the timeline shows the resting level, and the
    // cadence figures include the sampler's idle rhythm, not only the busy catch-up.
    let idleRss = 0;
    let idleHeap = 0;
    let idleDone: () => void = () => undefined;
    const idle = new Promise<void>((resolve) => {
      idleDone = resolve;
    });
    const sampler = await startSampler({
      pid: target.pid,
      inspector,
      intervalMs: ctx.config.sampleIntervalMs,
      heapIntervalMs: ctx.config.heapIntervalMs ?? undefined,
      file: join(ctx.runDir, samplesFile),
      origin,
      onRss: () => {
        if (++idleRss >= IDLE_SAMPLES && idleHeap >= IDLE_HEAP_SAMPLES) idleDone();
      },
      onHeap: () => {
        if (++idleHeap >= IDLE_HEAP_SAMPLES && idleRss >= IDLE_SAMPLES) idleDone();
      },
    });
    sampler.mark("baseline", { heapUsed: baselineHeap, pid: target.pid, command: commandLine(target.pid) });
    void sampler.ended.then(() => idleDone());
    await idle;
    const spec = sessionSpec(ctx.config, target.url, afterSequenceFor(t.mode, fixture.meta), ctx.config.holdMs);
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
    const sampled = await sampler.stop();
    const closing = await closingHeap(target, inspector, sampled.hwmRssBytes, (heapUsed) =>
      appendFileSync(
        join(ctx.runDir, samplesFile),
        `${JSON.stringify({ t: performance.now() - origin, phase: "gc", heapUsed })}\n`,
      ),
    );
    const { postGc, hwm } = closing;
    extraError ??= closing.error;
    const summary = { ...sampled, hwmRssBytes: hwm };
    if ((rows.some((r) => !r.ok) || postGc === null) && (await exitedWithin(target, 1000))) {
      extraError = target.describeExit();
      if (!ctx.stopped()) ctx.onCrash?.(crashOf(target, t.variant, `during ${memoryTrialId(t)}`, [memoryTrialId(t)]));
    }
    return { ...memoryRow(t, samplesFile, rows, baselineHeap, postGc, summary, extraError), clientLoopLagMs: loopLag };
  } catch (e) {
    const died = await exitedWithin(target, 1000);
    if (died && !ctx.stopped())
      ctx.onCrash?.(crashOf(target, t.variant, `during ${memoryTrialId(t)}`, [memoryTrialId(t)]));
    const why = died ? target.describeExit() : (e as Error).message;
    return emptyRow(t, null, why);
  } finally {
    await target.stop();
    untrack();
  }
}

export async function runMemory(ctx: MemoryContext): Promise<void> {
  for (const t of trialQueue(ctx)) {
    const row = await runTrial(ctx, t);
    if (ctx.stopped() && !row.ok) return; // interrupted mid-trial: not a result
    ctx.onRow(row);
    if (!row.ok && ctx.config.failFast) {
      throw new FailFast(`--fail-fast: ${memoryTrialId(t)} failed: ${row.error}`);
    }
  }
}
