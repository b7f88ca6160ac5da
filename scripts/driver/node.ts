// The Node driver: C concurrent sessions through the shared protocol client (scenarios/lib) on
// `ws`, with this process's event-loop lag measured while they run, so client-side distortion is
// visible beside the figures.
import { type PhaseMark, phaseMarkCollector } from "../../scenarios/lib/phase-marks.js";
import type { SessionResult } from "../../scenarios/lib/session.js";
import { type DriverSessionOptions, type LoopLag, runNodeSession, startLoopLag } from "./node-session.js";

export type { SessionResult } from "../../scenarios/lib/session.js";

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
  /** Wall-clock marks (epoch ms) of the sessions' phases: first, last, count, as a k6 runner's summary has them. */
  phases: Record<string, PhaseMark | null>;
}

/** Runs `clients` concurrent sessions; resolves when all have ended (each has its own timeout). */
export async function runSessions(options: RunSessionsOptions): Promise<RunSessionsResult> {
  const { clients, onPhase, startIntervalMs = 0, ...session } = options;
  if (!Number.isInteger(clients) || clients < 1)
    throw new RangeError(`clients must be an integer >= 1 (got ${clients})`);
  const stopLag = startLoopLag();
  const marks = phaseMarkCollector();
  let loopLag: LoopLag | undefined;
  try {
    const start = (index: number) =>
      startIntervalMs > 0 && index > 0
        ? new Promise<void>((resolve) => setTimeout(resolve, index * startIntervalMs))
        : Promise.resolve();
    const rows = await Promise.all(
      Array.from({ length: clients }, async (_, index) => {
        await start(index);
        return runNodeSession({
          ...session,
          onPhase: (name: string, t: number) => {
            marks.onPhase(name);
            onPhase?.(index, name, t);
          },
        });
      }),
    );
    loopLag = stopLag();
    return { rows, loopLag, phases: marks.marks() };
  } finally {
    if (loopLag === undefined) stopLag();
  }
}
