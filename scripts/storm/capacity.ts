// bench:client's storm part: how many concurrent delayed-ACK sessions the storm driver (sessions over
// worker threads) holds on this machine, with its event-loop lag (worst worker) and its memory per
// session (this process's RSS, workers included, sampled every 50 ms from the main thread).
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { COMPLETION_MARKER, SUBSCRIBE_TAG, SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { type SessionSpec, subscribePayloadFor } from "../driver/session-spec.js";
import { type StormSession, stormFigures } from "./figures.js";
import { runStormClients } from "./fleet.js";

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
  /**
   * The control: the loop lag of an idle worker thread in this process over the same window. On a
   * shared machine other processes' CPU use shows up as lag in every thread; the driver's own lag is
   * what it adds above this.
   */
  controlLoopLag: { p50: number; p99: number; max: number } | null;
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
  const control = idleLagWorker();
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
      controlLoopLag: await control.stop(),
      rssBeforeBytes: rssBefore,
      rssPeakBytes: peak,
      rssPerSessionBytes: (peak - rssBefore) / clients,
      wallMs: performance.now() - t0,
    };
  } finally {
    clearInterval(sampler);
    await control.stop();
  }
}

const IDLE_LAG = `
const { parentPort } = require("node:worker_threads");
const { monitorEventLoopDelay } = require("node:perf_hooks");
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
parentPort.on("message", () => {
  h.disable();
  const x = (ns) => Math.max(0, ns / 1e6 - 5);
  parentPort.postMessage(h.count === 0 ? { p50: 0, p99: 0, max: 0 } : { p50: x(h.percentile(50)), p99: x(h.percentile(99)), max: x(h.max) });
});`;

/** An idle worker thread measuring its own event-loop lag until stop() (which answers once; later calls get the same). */
function idleLagWorker(): { stop: () => Promise<{ p50: number; p99: number; max: number } | null> } {
  const w = new Worker(IDLE_LAG, { eval: true });
  let result: Promise<{ p50: number; p99: number; max: number } | null> | null = null;
  return {
    stop: () => {
      result ??= new Promise<{ p50: number; p99: number; max: number } | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), 5000);
        w.once("message", (m) => {
          clearTimeout(timer);
          resolve(m as { p50: number; p99: number; max: number });
        });
        w.once("error", () => resolve(null));
        w.postMessage("stop");
      }).finally(() => void w.terminate());
      return result;
    },
  };
}
