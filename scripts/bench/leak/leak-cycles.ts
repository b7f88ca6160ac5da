// Leak cycles: one fresh server per variant, all started first and kept alive, then cycle after
// cycle of subscribe -> catch-up -> hold -> close with C clients (the memory cells' resume case),
// variants interleaved within each cycle in rotated order, so a drift of the machine reaches every
// variant alike. After each cycle: the target's descriptors are given a moment to drop back (a
// closed WebSocket is released asynchronously), then two forced GCs and the post-GC heap through
// the inspector, RSS from /proc/PID/statm and the count of /proc/PID/fd entries.
import { readdirSync } from "node:fs";
import type { RunClients } from "../../driver/session-spec.js";
import type { LeakPoint, LeakRow } from "../../results/leak-record.js";
import { openRssReader, type RssReader } from "../../sampler/procfs.js";
import { postGcHeap } from "../../sampler/sampler.js";
import { leakRow } from "../../verdicts/leak-verdict.js";
import type { FixtureRef } from "../fixtures/fixtures.js";
import { privateCopy } from "../fixtures/fixtures.js";
import { type CrashReport, crashOf, exitedWithin, targetOptions } from "../latency/latency.js";
import { afterSequenceFor, rotation } from "../rounds/plan.js";
import type { LeakConfig, ProtocolConfig, TargetSpec, TargetsConfig } from "../run/config.js";
import { startTarget, type Target } from "../trial/launch.js";
import { sessionSpec } from "../trial/sessions.js";

/** How long descriptors may take to drop back to their pre-cycle count after the clients closed. */
const FD_SETTLE_MS = 1000;
const FD_POLL_MS = 10;

export interface LeakContext {
  leak: LeakConfig;
  /** Clients per cycle: the first memory client count. */
  clients: number;
  protocol: ProtocolConfig;
  launch: TargetsConfig;
  fixture: FixtureRef;
  workDir: string;
  /** Variants in order (first is the baseline). */
  targets: TargetSpec[];
  runClients: RunClients;
  stopped: () => boolean;
  track: (target: Target) => () => void;
  signal?: AbortSignal;
  onCycleStart?: (variant: string, cycle: number, of: number) => void;
  onCycle?: (variant: string, cycle: number, of: number, ok: boolean) => void;
  onCrash?: (crash: CrashReport) => void;
}

/** Open descriptors of pid (entries of /proc/PID/fd), or null when they cannot be listed. */
export function fdCount(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** Waits (polling /proc, at most ms) until pid holds no more descriptors than `before`. */
async function fdsSettled(pid: number, before: number | null, ms: number): Promise<void> {
  if (before === null) return;
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const now = fdCount(pid);
    if (now === null || now <= before) return;
    await new Promise((r) => setTimeout(r, FD_POLL_MS));
  }
}

interface Running {
  spec: TargetSpec;
  target: Target | null;
  rss: RssReader | null;
  untrack: () => void;
  points: LeakPoint[];
  error: string | null;
}

/** One leak row per variant, in the order of ctx.targets (a variant that could not start: `missing`). */
export async function runLeak(ctx: LeakContext): Promise<LeakRow[]> {
  const { leak, clients } = ctx;
  const total = leak.warmup + leak.cycles;
  const after = afterSequenceFor("memory", ctx.fixture.meta);
  const running: Running[] = [];
  try {
    for (const spec of ctx.targets) {
      const r: Running = { spec, target: null, rss: null, untrack: () => undefined, points: [], error: null };
      running.push(r);
      if (ctx.stopped()) break;
      try {
        // Ready once it upgrades a WebSocket (no warm-up session: the warm-up cycles are the warm-up).
        r.target = await startTarget(spec, {
          ...targetOptions(ctx, privateCopy(ctx.fixture, spec, ctx.workDir, `leak-${spec.name}`), true),
          warmUpSession: null,
        });
        r.untrack = ctx.track(r.target);
        if (!r.target.inspector) r.error = `target ${spec.name}: no inspector`;
        else r.rss = openRssReader(r.target.pid);
      } catch (e) {
        r.error = (e as Error).message;
      }
    }
    for (let cycle = 1; cycle <= total && !ctx.stopped(); cycle++) {
      for (const r of rotation(running, cycle - 1)) {
        if (ctx.stopped()) break;
        if (r.error !== null || !r.target) continue;
        ctx.onCycleStart?.(r.spec.name, cycle, total);
        const ok = await runCycle(ctx, r, r.target, cycle, clients, after);
        ctx.onCycle?.(r.spec.name, cycle, total, ok);
      }
    }
  } finally {
    for (const r of running) {
      r.rss?.close();
      if (r.target) await r.target.stop(ctx.launch.stopGraceMs);
      r.untrack();
    }
  }
  return ctx.targets.map((spec) => {
    const r = running.find((x) => x.spec === spec);
    const error = r?.error ?? (ctx.stopped() ? "interrupted" : null);
    return leakRow(spec.name, clients, r?.points ?? [], leak.warmup, leak.thresholdBytes, error);
  });
}

/** One cycle of one variant; false (and r.error set) when it failed, which ends that variant's cycles. */
async function runCycle(
  ctx: LeakContext,
  r: Running,
  target: Target,
  cycle: number,
  clients: number,
  after: number | null,
): Promise<boolean> {
  const fail = async (why: string): Promise<false> => {
    const died = await exitedWithin(target, 1000);
    r.error = `cycle ${cycle}: ${died ? target.describeExit() : why}`;
    if (died && !ctx.stopped()) {
      ctx.onCrash?.(crashOf(target, r.spec.name, `during leak cycle ${cycle}`, [`leak ${r.spec.name}`]));
    }
    return false;
  };
  try {
    const before = fdCount(target.pid);
    const spec = sessionSpec(ctx.protocol, target, after, ctx.protocol.holdMs);
    const { rows } = await ctx.runClients(clients, spec);
    const bad = rows.findIndex((row) => !row.ok);
    if (bad >= 0) return await fail(`client ${bad + 1}: ${rows[bad]?.error}`);
    if (rows.length !== clients) return await fail(`${rows.length} of ${clients} sessions reported`);
    await fdsSettled(target.pid, before, FD_SETTLE_MS);
    const heap = await postGcHeap(target.inspector as NonNullable<Target["inspector"]>);
    let rss: number | null = null;
    try {
      rss = r.rss?.read() ?? null;
    } catch {
      rss = null;
    }
    r.points.push({ cycle, postGcHeapBytes: heap, rssBytes: rss, fds: fdCount(target.pid) });
    return true;
  } catch (e) {
    return await fail((e as Error).message);
  }
}
