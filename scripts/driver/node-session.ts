// One session of the shared protocol client (scenarios/lib) in Node: the `ws` WebSocket class, the
// monotonic clock, Node's timers and byte counter wired in once, and the event-loop lag of the
// process while sessions run. The Node driver and the storm worker both run sessions through this.
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import WebSocket from "ws";
import { runSession, type SessionOptions, type SessionResult } from "../../scenarios/lib/session.js";

/** A session's options without what this module wires in (onPhase is the caller's). */
export type NodeSessionOptions = Omit<
  SessionOptions,
  "WebSocket" | "now" | "setTimeout" | "clearTimeout" | "utf8Length"
>;

/** The shared client's options without what a driver supplies itself. */
export type DriverSessionOptions = Omit<NodeSessionOptions, "onPhase">;

/** Runs one session of the shared client on `ws`; phase times are performance.now() ms. Never rejects. */
export function runNodeSession(options: NodeSessionOptions): Promise<SessionResult> {
  return runSession({
    ...options,
    WebSocket,
    now: () => performance.now(),
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (h: ReturnType<typeof setTimeout>) => clearTimeout(h),
    utf8Length: (s: string) => Buffer.byteLength(s, "utf8"),
  });
}

/** Event-loop delay of the driving process while sessions ran, in ms. */
export interface LoopLag {
  p50: number;
  p99: number;
  max: number;
}

/** Sampling period of the loop-delay histogram; its values have this resolution subtracted. */
const LAG_RESOLUTION_MS = 5;

/** Starts measuring this thread's event-loop lag; the returned function stops and reports it. */
export function startLoopLag(): () => LoopLag {
  const h = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  h.enable();
  return () => {
    h.disable();
    // Histogram values are ns and include the sampling period itself; report the excess in ms.
    if (h.count === 0) return { p50: 0, p99: 0, max: 0 };
    const excess = (ns: number) => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
    return { p50: excess(h.percentile(50)), p99: excess(h.percentile(99)), max: excess(h.max) };
  };
}
