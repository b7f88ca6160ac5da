// Latency cells: one warm server per variant, one uncounted warm-up session per variant, then the
// planned trials (interleaved, rotated), each one fresh WebSocket session. A target that dies
// mid-trial makes that trial ok:false with its exit and last stderr lines; the next trial of that
// variant gets a fresh server.
import { emptySessionResult } from "../../../scenarios/lib/session.js";
import type { RunClients } from "../../driver/session-spec.js";
import type { LatencyRow, SessionFigures } from "../../results/schema.js";
import { cpuDelta, cpuTimeMsOrNull } from "../../sampler/cpu.js";
import { type FixtureRef, privateCopy, type TargetState } from "../fixtures/fixtures.js";
import { afterSequenceFor, type LatencyTrial } from "../rounds/plan.js";
import type { ProtocolConfig, TargetSpec, TargetsConfig } from "../run/config.js";
import { startTarget, type Target, type TargetOptions } from "../trial/launch.js";
import { caseSessionSpec, sessionSpec } from "../trial/sessions.js";

/** What latency and memory cells both get from the runner: a trial plan, its targets, and its hooks. */
export interface CellContext<Trial, Row> {
  protocol: ProtocolConfig;
  /** How targets are started and stopped (readiness, grace). */
  launch: TargetsConfig;
  /** --fail-fast: the first failed trial ends the run. */
  failFast: boolean;
  workDir: string;
  /** Targets by variant name (for --aa, two names for the baseline's spec). */
  targets: Map<string, TargetSpec>;
  plan: Trial[];
  /** Asked when the plan is done: more trials to run (auto-sampling's next round), or none to finish. */
  more?: () => Trial[];
  runClients: RunClients;
  onRow: (row: Row) => void;
  onTrialStart?: (trial: Trial, index: number) => void;
  /** Awaited right before each trial runs (the run reads the machine's load here, and may wait for quiet). */
  beforeTrial?: (trial: Trial) => Promise<void>;
  stopped: () => boolean;
  /** Registers a running target so an interrupt can stop it. */
  track: (target: Target) => () => void;
  /** A target died on its own (never one the harness stopped): recorded as a finding. */
  onCrash?: (crash: CrashReport) => void;
  /** Aborted on an interrupt: a target still starting stops at once. */
  signal?: AbortSignal;
}

/**
 * The trials to run, in order: the plan, then whatever rounds auto-sampling adds (ctx.more) once the
 * plan is done; stops when nothing is added or the run was stopped. Each trial comes with its index,
 * and ctx.onTrialStart hears of it before it is yielded.
 */
export function* trialQueue<Trial, Row>(
  ctx: CellContext<Trial, Row>,
  upcoming?: { next: Trial | null },
): Generator<Trial> {
  const queue = [...ctx.plan];
  for (let index = 0; ; index++) {
    if (index >= queue.length) queue.push(...(ctx.stopped() ? [] : (ctx.more?.() ?? [])));
    const t = queue[index];
    if (!t || ctx.stopped()) return;
    ctx.onTrialStart?.(t, index);
    // The trial after this one, if already queued (never asks ctx.more: that waits for this row).
    if (upcoming) upcoming.next = queue[index + 1] ?? null;
    yield t;
  }
}

export interface LatencyContext extends CellContext<LatencyTrial, LatencyRow> {
  fixture: FixtureRef;
}

/** A target that died on its own, as a cell saw it (the runner adds the time and the matrix). */
export interface CrashReport {
  variant: string;
  during: string;
  code: number | null;
  signal: string | null;
  stderrTail: string;
  affects: string[];
}

/** The crash record of a target that has exited. */
export function crashOf(target: Target, variant: string, during: string, affects: string[]): CrashReport {
  const exit = target.exitInfo();
  return {
    variant,
    during,
    code: exit?.code ?? null,
    signal: exit?.signal ?? null,
    stderrTail: target.stderrTail(5).replace(/\r?\n/g, " | "),
    affects,
  };
}

export class FailFast extends Error {
  override readonly name = "FailFast";
}

/** The figures of a session that could not run: the shared client's empty row with the reason. */
const failed = (error: string): SessionFigures => emptySessionResult(error);

/**
 * True when the target has exited or is exiting: waits up to ms for its exit (a dying server closes
 * its sockets a moment before it is reaped), longer once /proc shows it gone, so the exit code or
 * signal can be reported.
 */
export async function exitedWithin(target: Target, ms: number): Promise<boolean> {
  if (target.exitInfo()) return true;
  const wait = target.alive() ? ms : Math.max(ms, 10_000);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(!target.alive()), wait);
  });
  const result = await Promise.race([target.exited.then(() => true), timeout]);
  clearTimeout(timer);
  return result;
}

/**
 * After a failure: true when the target died of it (exitedWithin a second), its crash reported unless
 * the run was stopped.
 */
export async function reportIfDied(
  ctx: { stopped: () => boolean; onCrash?: (crash: CrashReport) => void },
  target: Target,
  variant: string,
  cellId: string,
): Promise<boolean> {
  const died = await exitedWithin(target, 1000);
  if (died && !ctx.stopped()) ctx.onCrash?.(crashOf(target, variant, `during ${cellId}`, [cellId]));
  return died;
}

/** One session of a latency case against a running target. */
async function session(
  ctx: LatencyContext,
  target: Target,
  c: LatencyTrial["case"],
): Promise<SessionFigures & { targetCpuMs: number | null }> {
  const spec = caseSessionSpec(ctx.protocol, target, c, ctx.fixture.meta, 0);
  // The server's CPU time over the session (read before and after it, outside the timed part).
  const cpuBefore = await cpuTimeMsOrNull(target.pid);
  const { rows } = await ctx.runClients(1, spec);
  const targetCpuMs = cpuDelta(cpuBefore, await cpuTimeMsOrNull(target.pid));
  const row = rows[0] ?? failed("the driver returned no session");
  if (!row.ok && (await exitedWithin(target, 1000))) {
    return { ...row, error: `${row.error ?? "session failed"}; ${target.describeExit()}`, targetCpuMs: null };
  }
  return { ...row, targetCpuMs };
}

/** What every cell passes to startTarget: the run's readiness, stop and interrupt settings. */
export function targetOptions(
  ctx: { protocol: ProtocolConfig; launch: TargetsConfig; signal?: AbortSignal },
  state: TargetState,
  inspect: boolean,
): Omit<TargetOptions, "warmUpSession"> {
  return {
    db: state.db,
    urlPath: ctx.protocol.urlPath,
    // A seeded server's own token, else the run's.
    token: state.token ?? ctx.protocol.token,
    headers: ctx.protocol.headers,
    startTimeoutMs: ctx.launch.startTimeoutMs,
    inspect,
    readyLine: ctx.launch.readyLine === null ? null : new RegExp(ctx.launch.readyLine),
    stopGraceMs: ctx.launch.stopGraceMs,
    signal: ctx.signal,
    subscribeTag: ctx.protocol.subscribeTag,
  };
}

/**
 * Starts a warm server for a variant: ready once an uncounted warm-up session completes (retried
 * until the start timeout; see scripts/server-process/warmup.ts). A target that never gets there is fatal.
 */
async function warmTarget(ctx: LatencyContext, variant: string): Promise<Target> {
  const spec = ctx.targets.get(variant);
  if (!spec) throw new Error(`no target named ${variant}`);
  const after = afterSequenceFor("snapshot", ctx.fixture.meta);
  const options = targetOptions(ctx, privateCopy(ctx.fixture, spec, ctx.workDir, variant), false);
  const target = await startTarget(spec, {
    ...options,
    warmUpSession: async (url) => {
      const server = { url, token: options.token };
      const { rows } = await ctx.runClients(1, sessionSpec(ctx.protocol, server, after, 0));
      return rows[0] ?? failed("the driver returned no session");
    },
  });
  const untrack = ctx.track(target);
  target.exited.then(untrack);
  return target;
}

export async function runLatency(ctx: LatencyContext): Promise<void> {
  const servers = new Map<string, Target>();
  try {
    // Warm servers in the order of the first repetition, so start-up happens before any timing.
    for (const t of ctx.plan) {
      if (ctx.stopped()) return;
      if (!servers.has(t.variant)) servers.set(t.variant, await warmTarget(ctx, t.variant));
    }
    // A dead server is a finding: recorded once, with the trials it failed or that ran on its replacement.
    const recorded = new Set<Target>();
    const crashed = (target: Target, variant: string, during: string, affects: string[]) => {
      if (recorded.has(target)) return;
      recorded.add(target);
      ctx.onCrash?.(crashOf(target, variant, during, affects));
    };
    for (const t of trialQueue(ctx)) {
      let figures: SessionFigures;
      let target = servers.get(t.variant);
      const trialName = `${t.case} ${t.variant} trial ${t.trial}`;
      await ctx.beforeTrial?.(t);
      try {
        if (!target?.alive()) {
          if (target && !ctx.stopped() && (await exitedWithin(target, 1000))) {
            crashed(target, t.variant, `while idle between trials (seen before ${trialName})`, [
              `${trialName} and later ${t.variant} trials ran on a restarted server`,
            ]);
          }
          await target?.stop(); // whatever is left of its process group (a wrapper's cleanup may still run)
          target = await warmTarget(ctx, t.variant);
          servers.set(t.variant, target);
        }
        figures = await session(ctx, target, t.case);
        if (!figures.ok && !ctx.stopped() && target.exitInfo()) {
          crashed(target, t.variant, `during ${trialName}`, [`${trialName} failed`]);
        }
      } catch (e) {
        figures = failed((e as Error).message);
      }
      if (ctx.stopped() && !figures.ok) return; // interrupted mid-trial: not a result
      ctx.onRow({ case: t.case, variant: t.variant, trial: t.trial, ...figures });
      if (!figures.ok && ctx.failFast) {
        throw new FailFast(`--fail-fast: ${t.case} ${t.variant} trial ${t.trial} failed: ${figures.error}`);
      }
    }
    // A server that died after its last trial still died on its own.
    for (const [variant, target] of servers) {
      if (!ctx.stopped() && !target.alive() && (await exitedWithin(target, 1000))) {
        crashed(target, variant, "while idle after its last trial", []);
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((s) => s.stop()));
  }
}
