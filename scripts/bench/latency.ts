// Latency cells: one warm server per variant, one uncounted warm-up session per variant, then the
// planned trials (interleaved, rotated), each one fresh WebSocket session. A target that dies
// mid-trial makes that trial ok:false with its exit and last stderr lines; the next trial of that
// variant gets a fresh server.
import { emptySessionResult } from "../../scenarios/lib/session.js";
import type { LatencyRow, SessionFigures } from "../results.js";
import type { BenchConfig, TargetSpec } from "./config.js";
import { type FixtureRef, privateCopy } from "./fixtures.js";
import { afterSequenceFor, type LatencyTrial } from "./plan.js";
import { type RunClients, sessionSpec } from "./sessions.js";
import { startTarget, type Target, TargetError } from "./target.js";

/** What latency and memory cells both get from the runner: a trial plan, its targets, and its hooks. */
export interface CellContext<Trial, Row> {
  config: BenchConfig;
  workDir: string;
  /** Targets by variant name (for --aa, two names for the baseline's spec). */
  targets: Map<string, TargetSpec>;
  plan: Trial[];
  runClients: RunClients;
  onRow: (row: Row) => void;
  onTrialStart?: (trial: Trial, index: number) => void;
  stopped: () => boolean;
  /** Registers a running target so an interrupt can stop it. */
  track: (target: Target) => () => void;
}

export interface LatencyContext extends CellContext<LatencyTrial, LatencyRow> {
  fixture: FixtureRef;
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

/** One session of a latency case against a running target. */
async function session(ctx: LatencyContext, target: Target, c: LatencyTrial["case"]): Promise<SessionFigures> {
  const after = afterSequenceFor(c, ctx.fixture.meta);
  const spec = sessionSpec(ctx.config, target.url, after, 0);
  const { rows } = await ctx.runClients(1, spec);
  const row = rows[0] ?? failed("the driver returned no session");
  if (!row.ok && (await exitedWithin(target, 1000))) {
    return { ...row, error: `${row.error ?? "session failed"}; ${target.describeExit()}` };
  }
  return row;
}

/** Starts a warm server for a variant and runs its uncounted warm-up session; a failed warm-up is fatal. */
async function warmTarget(ctx: LatencyContext, variant: string): Promise<Target> {
  const spec = ctx.targets.get(variant);
  if (!spec) throw new Error(`no target named ${variant}`);
  const target = await startTarget(spec, {
    db: privateCopy(ctx.fixture, ctx.workDir, variant),
    urlPath: ctx.config.urlPath,
    token: ctx.config.token,
    startTimeoutMs: ctx.config.startTimeoutMs,
    inspect: false,
  });
  const untrack = ctx.track(target);
  target.exited.then(untrack);
  const warm = await session(ctx, target, "snapshot");
  if (!warm.ok) {
    await target.stop();
    throw new TargetError(
      `target ${variant} at ${target.url} did not complete a warm-up session (is it an Effect RPC server speaking ${ctx.config.subscribeTag}?): ${warm.error}`,
    );
  }
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
    for (const [index, t] of ctx.plan.entries()) {
      if (ctx.stopped()) return;
      ctx.onTrialStart?.(t, index);
      let figures: SessionFigures;
      let target = servers.get(t.variant);
      try {
        if (!target?.alive()) {
          await target?.stop(1000); // whatever is left of its process group
          target = await warmTarget(ctx, t.variant);
          servers.set(t.variant, target);
        }
        figures = await session(ctx, target, t.case);
      } catch (e) {
        figures = failed((e as Error).message);
      }
      if (ctx.stopped() && !figures.ok) return; // interrupted mid-trial: not a result
      ctx.onRow({ case: t.case, variant: t.variant, trial: t.trial, ...figures });
      if (!figures.ok && ctx.config.failFast) {
        throw new FailFast(`--fail-fast: ${t.case} ${t.variant} trial ${t.trial} failed: ${figures.error}`);
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((s) => s.stop()));
  }
}
