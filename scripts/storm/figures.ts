// Storm figures from the sessions' own timestamps: how many clients caught up, why the others failed,
// the completion distribution and the moment the last one caught up. Pure: no sockets, no clock.

import type { StormFailureKind, StormFigures } from "../results/storm-record.js";
import { quantileSorted } from "../util/stats.js";

/** One client of a storm as the driver saw it; times in ms since the storm started (its first connect). */
export interface StormSession {
  ok: boolean;
  error: string | null;
  /** This client's connect began (its ramp offset plus scheduling delay). */
  startMs: number;
  /** The completion frame arrived; null when it never did. */
  caughtUpAtMs: number | null;
  /** The session's own subscribe-sent -> completion frame time. */
  completionMs: number | null;
  /** Resumed from a cursor (true) or took a cold snapshot. */
  resume: boolean;
}

/**
 * The failure kind of a session's error text. The shared client words its errors; the ws library's
 * refused upgrade reads "Unexpected server response: 401" (or 503...), a refused TCP connect
 * "ECONNREFUSED"/"ECONNRESET" before open.
 */
export function classifyFailure(error: string | null): StormFailureKind {
  const e = error ?? "";
  if (/unexpected server response|ECONNREFUSED|handshake|upgrade/i.test(e)) return "upgrade-refused";
  if (/timed out|ETIMEDOUT/i.test(e)) return "timeout";
  if (/connection closed|ECONNRESET|EPIPE|socket hang up|closed before/i.test(e)) return "closed-early";
  return "other";
}

function emptyFailures(): Record<StormFailureKind, number> {
  return { "upgrade-refused": 0, timeout: 0, "closed-early": 0, other: 0 };
}

/**
 * The figures of a storm of `clients` sessions. A client the driver never reported counts as failed
 * ("other"), so ok + failed is always the number of clients asked for. Percentiles are type 7 over
 * the ok sessions' completion times.
 */
export function stormFigures(clients: number, sessions: readonly StormSession[]): StormFigures {
  const failures = emptyFailures();
  const completions: number[] = [];
  let ok = 0;
  let lastCaughtUp: number | null = null;
  for (const s of sessions.slice(0, clients)) {
    if (s.ok && s.completionMs !== null) {
      ok += 1;
      completions.push(s.completionMs);
      if (s.caughtUpAtMs !== null) lastCaughtUp = Math.max(lastCaughtUp ?? 0, s.caughtUpAtMs);
    } else {
      failures[classifyFailure(s.ok ? "no completion time" : s.error)] += 1;
    }
  }
  const missing = Math.max(0, clients - Math.min(clients, sessions.length));
  failures.other += missing;
  completions.sort((a, b) => a - b);
  const q = (p: number) => (completions.length ? quantileSorted(completions, p) : null);
  return {
    clients,
    ok,
    failed: clients - ok,
    failures,
    completionMsP50: q(0.5),
    completionMsP99: q(0.99),
    completionMsMax: completions.length ? (completions.at(-1) as number) : null,
    // Only meaningful when every client caught up: a storm with failures never "all caught up".
    allCaughtUpMs: ok === clients ? lastCaughtUp : null,
  };
}

/**
 * Caught-up clients over time: [ms since the storm began, clients caught up by then], one point per
 * completion, for the report's chart.
 */
export function caughtUpTimeline(sessions: readonly StormSession[]): Array<[number, number]> {
  const times = sessions
    .filter((s) => s.ok && s.caughtUpAtMs !== null)
    .map((s) => s.caughtUpAtMs as number)
    .sort((a, b) => a - b);
  return times.map((t, i) => [t, i + 1]);
}

/**
 * Which clients resume (true) and which take a cold snapshot, for a resume ratio r in [0, 1]: client
 * i resumes when floor((i + 1) r) > floor(i r), so the resumes are spread evenly through the ramp
 * and exactly floor(n r) of n clients resume.
 */
export function resumePlan(clients: number, ratio: number): boolean[] {
  return Array.from({ length: clients }, (_, i) => Math.floor((i + 1) * ratio + 1e-9) > Math.floor(i * ratio + 1e-9));
}

/** Connect offsets (ms) of n clients spread evenly over rampMs: client i at i * rampMs / n. */
export function rampOffsets(clients: number, rampMs: number): number[] {
  return Array.from({ length: clients }, (_, i) => (rampMs > 0 ? (i * rampMs) / clients : 0));
}

/** Points kept in a row's timeline. */
export const TIMELINE_POINTS = 300;

/**
 * The chart timeline of a storm: RSS samples and caught-up counts on one axis (ms since the storm
 * began), each thinned to at most `points` (every k-th, always keeping the peak RSS and the last of each).
 */
export function stormTimeline(
  rss: ReadonlyArray<[number, number]>,
  caughtUp: ReadonlyArray<[number, number]>,
  points = TIMELINE_POINTS,
): Array<[number, number | null, number | null]> {
  const MIB = 1024 * 1024;
  const thin = <T>(xs: readonly T[], keep: (x: T, i: number) => boolean): T[] => {
    const step = Math.max(1, Math.ceil(xs.length / points));
    return xs.filter((x, i) => i % step === 0 || i === xs.length - 1 || keep(x, i));
  };
  const peak = rss.reduce((m, [, v], i) => ((rss[m]?.[1] ?? -1) < v ? i : m), 0);
  const r = thin(rss, (_, i) => i === peak).map(([t, v]): [number, number | null, number | null] => [
    round1(t),
    Math.round((v / MIB) * 100) / 100,
    null,
  ]);
  const c = thin(caughtUp, () => false).map(([t, n]): [number, number | null, number | null] => [round1(t), null, n]);
  return [...r, ...c].sort((a, b) => a[0] - b[0]);
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
