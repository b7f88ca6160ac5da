// Worker-thread entry of the storm driver: runs its share of a storm's sessions (the shared client on
// `ws`), each starting at its own ramp offset after the common start time the parent sends, and
// reports every session with wall-clock-comparable times (performance.timeOrigin + now), so sessions
// from several workers share one time axis.
// Protocol: workerData = StormWorkerData; posts {ready}; receives {go: epochMs}; posts {result}.
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import WebSocket from "ws";
import { runSession } from "../../scenarios/lib/session.js";
import { driverOptions } from "../driver/clients.js";
import type { SessionSpec } from "../driver/session-spec.js";

export interface StormWorkerData {
  spec: SessionSpec;
  /** The snapshot payload (the resume payload is spec.subscribePayload). */
  snapshotPayload: Record<string, unknown>;
  /** probe: this client sends the unary probe at its first chunk (a sample of the clients does). */
  clients: Array<{ index: number; offsetMs: number; resume: boolean; probe: boolean }>;
}

export interface StormWorkerSession {
  index: number;
  resume: boolean;
  ok: boolean;
  error: string | null;
  completionMs: number | null;
  probeMs: number | null;
  /** Epoch ms (timeOrigin + now) of the connect and of the completion frame. */
  connectAt: number;
  caughtUpAt: number | null;
}

export interface StormWorkerResult {
  sessions: StormWorkerSession[];
  loopLag: { p50: number; p99: number; max: number };
}

const LAG_RESOLUTION_MS = 5;
const epochNow = () => performance.timeOrigin + performance.now();

const port = parentPort;
if (!port) throw new Error("storm worker must run as a worker thread");
const data = workerData as StormWorkerData;

async function run(goAt: number): Promise<StormWorkerResult> {
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  const base = driverOptions(1, data.spec);
  const sessions = await Promise.all(
    data.clients.map(async ({ index, offsetMs, resume, probe }): Promise<StormWorkerSession> => {
      const wait = goAt + offsetMs - epochNow();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      let connectAt = epochNow();
      let caughtUpAt: number | null = null;
      const r = await runSession({
        ...base,
        subscribePayload: resume ? data.spec.subscribePayload : data.snapshotPayload,
        probe: probe ? base.probe : null,
        WebSocket,
        now: () => performance.now(),
        setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
        clearTimeout: (h: ReturnType<typeof setTimeout>) => clearTimeout(h),
        utf8Length: (s: string) => Buffer.byteLength(s, "utf8"),
        onPhase: (name: string) => {
          if (name === "connect") connectAt = epochNow();
          else if (name === "completion") caughtUpAt = epochNow();
        },
      });
      return {
        index,
        resume,
        ok: r.ok,
        error: r.error,
        completionMs: r.completionMs,
        probeMs: r.probeMs,
        connectAt,
        caughtUpAt,
      };
    }),
  );
  histogram.disable();
  const excess = (ns: number) => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
  const loopLag =
    histogram.count === 0
      ? { p50: 0, p99: 0, max: 0 }
      : { p50: excess(histogram.percentile(50)), p99: excess(histogram.percentile(99)), max: excess(histogram.max) };
  return { sessions, loopLag };
}

port.on("message", (m: { go?: number }) => {
  if (m.go === undefined) return;
  run(m.go).then(
    (result) => port.postMessage({ result }),
    (e: Error) => port.postMessage({ error: e.message }),
  );
});
port.postMessage({ ready: true });
