// The Node driver: C concurrent sessions through the shared protocol client (scenarios/lib) on
// `ws`, with this process's event-loop lag measured while they run, so client-side distortion is
// visible beside the figures.
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import WebSocket from "ws";
import { runSession, type SessionOptions, type SessionResult } from "../../scenarios/lib/session.js";

export type { SessionResult } from "../../scenarios/lib/session.js";

/** Event-loop delay of the driver process while sessions ran, in ms. */
export interface LoopLag {
  p50: number;
  p99: number;
  max: number;
}

export type DriverSessionOptions = Omit<
  SessionOptions,
  "WebSocket" | "now" | "setTimeout" | "clearTimeout" | "onPhase" | "utf8Length"
>;

export interface RunSessionsOptions extends DriverSessionOptions {
  /** Concurrent sessions. */
  clients: number;
  /** Start session i at i * startIntervalMs (default 0: all at once). A ramp keeps a burst of
   * handshakes from overflowing the server's accept backlog (SYN retries then add seconds). */
  startIntervalMs?: number;
  /** Phase marks per session index: "connect","open","first-chunk","completion","hold-end","close"; t from performance.now(). */
  onPhase?: (index: number, name: string, tMs: number) => void;
}

export interface RunSessionsResult {
  rows: SessionResult[];
  loopLag: LoopLag;
}

/** Sampling period of the loop-delay histogram; its values have this resolution subtracted. */
const LAG_RESOLUTION_MS = 5;

/** Runs `clients` concurrent sessions; resolves when all have ended (each has its own timeout). */
export async function runSessions(options: RunSessionsOptions): Promise<RunSessionsResult> {
  const { clients, onPhase, startIntervalMs = 0, ...session } = options;
  if (!Number.isInteger(clients) || clients < 1)
    throw new RangeError(`clients must be an integer >= 1 (got ${clients})`);
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  try {
    const start = (index: number) =>
      startIntervalMs > 0 && index > 0
        ? new Promise<void>((resolve) => setTimeout(resolve, index * startIntervalMs))
        : Promise.resolve();
    const rows = await Promise.all(
      Array.from({ length: clients }, async (_, index) => {
        await start(index);
        return runSession({
          ...session,
          WebSocket,
          now: () => performance.now(),
          setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
          clearTimeout: (h: ReturnType<typeof setTimeout>) => clearTimeout(h),
          utf8Length: (s: string) => Buffer.byteLength(s, "utf8"),
          onPhase: onPhase ? (name: string, t: number) => onPhase(index, name, t) : undefined,
        });
      }),
    );
    return { rows, loopLag: lagOf(histogram) };
  } finally {
    histogram.disable();
  }
}

/** Histogram values are ns and include the sampling period itself; report the excess in ms. */
function lagOf(h: ReturnType<typeof monitorEventLoopDelay>): LoopLag {
  if (h.count === 0) return { p50: 0, p99: 0, max: 0 };
  const excess = (ns: number) => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
  return { p50: excess(h.percentile(50)), p99: excess(h.percentile(99)), max: excess(h.max) };
}
