// bench:client's storm part: how many concurrent delayed-ACK sessions the storm driver (sessions over
// worker threads) holds on this machine, with its event-loop lag (worst worker) and its memory per
// session (this process's RSS, workers included, sampled every 50 ms from the main thread).
import { performance } from "node:perf_hooks";
import { COMPLETION_MARKER, SUBSCRIBE_TAG, SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import type { SessionSpec } from "../bench/sessions.js";
import { subscribePayloadFor } from "../bench/sessions.js";
import { runStormClients } from "./driver.js";
import { type StormSession, stormFigures } from "./figures.js";

export interface StormCapacity {
  clients: number;
  rampMs: number;
  holdMs: number;
  ackDelayMs: number;
  workers: number;
  ok: number;
  failed: number;
  firstError: string | null;
  /** Most sessions open at the same moment (connect to completion + hold). */
  maxOpen: number;
  loopLag: { p50: number; p99: number; max: number };
  rssBeforeBytes: number;
  rssPeakBytes: number;
  /** (peak - before) / clients. */
  rssPerSessionBytes: number;
  wallMs: number;
}

/** Most sessions open at once, each open from its start to its completion plus the hold. */
export function maxOpen(sessions: readonly StormSession[], holdMs: number): number {
  const events: Array<[number, number]> = [];
  for (const s of sessions) {
    const end = s.caughtUpAtMs === null ? null : s.caughtUpAtMs + holdMs;
    if (end === null) continue;
    events.push([s.startMs, 1], [end, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, d] of events) {
    open += d;
    most = Math.max(most, open);
  }
  return most;
}

export async function measureStormCapacity(
  url: string,
  token: string,
  after: number,
  clients: number,
  o: { rampMs: number; holdMs: number; ackDelayMs: number; timeoutMs: number },
): Promise<StormCapacity> {
  const spec: SessionSpec = {
    url,
    token,
    headers: {},
    subscribeTag: SUBSCRIBE_TAG,
    subscribePayload: subscribePayloadFor(SUBSCRIBE_TEMPLATE, after),
    completion: COMPLETION_MARKER,
    ackDelayMs: o.ackDelayMs,
    holdMs: o.holdMs,
    probe: null,
    timeoutMs: o.timeoutMs,
  };
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  const t0 = performance.now();
  try {
    const run = await runStormClients({
      clients,
      rampMs: o.rampMs,
      resumeRatio: 1,
      spec,
      snapshotPayload: subscribePayloadFor(SUBSCRIBE_TEMPLATE, null),
    });
    const f = stormFigures(clients, run.sessions);
    return {
      clients,
      rampMs: o.rampMs,
      holdMs: o.holdMs,
      ackDelayMs: o.ackDelayMs,
      workers: run.workers,
      ok: f.ok,
      failed: f.failed,
      firstError: run.sessions.find((s) => !s.ok)?.error ?? null,
      maxOpen: maxOpen(run.sessions, o.holdMs),
      loopLag: run.loopLag,
      rssBeforeBytes: rssBefore,
      rssPeakBytes: peak,
      rssPerSessionBytes: (peak - rssBefore) / clients,
      wallMs: performance.now() - t0,
    };
  } finally {
    clearInterval(sampler);
  }
}
