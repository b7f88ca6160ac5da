// Worker-thread entry of the storm driver: runs its share of a storm's sessions (the shared client on
// `ws`), each starting at its own ramp offset after the common start time the parent sends, and
// reports every session with wall-clock-comparable times (performance.timeOrigin + now), so sessions
// from several workers share one time axis.
// Protocol: workerData = StormWorkerData; posts {ready}; receives {go: epochMs}; posts {result}.
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { driverOptions } from "../driver/clients.js";
import { type LoopLag, runNodeSession, startLoopLag } from "../driver/node-session.js";
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
  loopLag: LoopLag;
}

const epochNow = () => performance.timeOrigin + performance.now();

const port = parentPort;
if (!port) throw new Error("storm worker must run as a worker thread");
const data = workerData as StormWorkerData;

async function run(goAt: number): Promise<StormWorkerResult> {
  const stopLag = startLoopLag();
  const base = driverOptions(1, data.spec);
  const sessions = await Promise.all(
    data.clients.map(async ({ index, offsetMs, resume, probe }): Promise<StormWorkerSession> => {
      const wait = goAt + offsetMs - epochNow();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      let connectAt = epochNow();
      let caughtUpAt: number | null = null;
      const r = await runNodeSession({
        ...base,
        subscribePayload: resume ? data.spec.subscribePayload : data.snapshotPayload,
        probe: probe ? base.probe : null,
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
  return { sessions, loopLag: stopLag() };
}

port.on("message", (m: { go?: number }) => {
  if (m.go === undefined) return;
  run(m.go).then(
    (result) => port.postMessage({ result }),
    (e: Error) => port.postMessage({ error: e.message }),
  );
});
port.postMessage({ ready: true });
