// Drivers as the bench sees them (RunClients). "node" runs the shared client (scenarios/lib) in
// this process over `ws`; "k6" hands the same sessions to k6 (scripts/driver/k6.ts).
import { Worker } from "node:worker_threads";
import WebSocket from "ws";
import { runSession } from "../../scenarios/lib/session.js";
import type { SessionFigures } from "../results.js";
import type { DriverName } from "./config.js";
import type { PhaseName, RunClients } from "./sessions.js";

/** C concurrent sessions of the shared client over `ws`, all started together. */
export const runClientsNode: RunClients = async (clients, spec, onPhase) => {
  const sessions = Array.from({ length: clients }, (_, index) =>
    runSession({
      WebSocket,
      now: () => performance.now(),
      setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
      clearTimeout: (h: NodeJS.Timeout) => clearTimeout(h),
      url: spec.url,
      token: spec.token,
      subscribeTag: spec.subscribeTag,
      subscribePayload: spec.subscribePayload,
      completion: spec.completion,
      ackDelayMs: spec.ackDelayMs,
      holdMs: spec.holdMs,
      probe: spec.probe,
      timeoutMs: spec.timeoutMs,
      utf8Length: (s: string) => Buffer.byteLength(s, "utf8"),
      onPhase: onPhase ? (name: string) => onPhase(index, name as PhaseName) : undefined,
    }) as Promise<SessionFigures>,
  );
  return { rows: await Promise.all(sessions) };
};

const WORKER = new URL("./clients-worker.js", import.meta.url);

/**
 * The Node driver in a worker thread: the same sessions, on another event loop. Memory cells use it
 * so the sampler on the main thread keeps its cadence while clients parse large frames.
 */
export const runClientsInWorker: RunClients = (clients, spec, onPhase) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { clients, spec } });
    let settled = false;
    // The sessions carry their own timeout; this one only guards against a wedged worker.
    const timer = setTimeout(() => fail(new Error(`client worker gave no result within ${spec.timeoutMs + 10_000} ms`)), spec.timeoutMs + 10_000);
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      reject(e);
    };
    worker.on("message", (m: { phase?: PhaseName; index?: number; rows?: SessionFigures[] }) => {
      if (m.rows) {
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        resolve({ rows: m.rows });
      } else if (m.phase !== undefined && onPhase) {
        onPhase(m.index ?? 0, m.phase);
      }
    });
    worker.on("error", (e) => fail(e));
    worker.on("exit", (code) => fail(new Error(`client worker exited (code ${code}) before its result`)));
  });

export async function driverFor(name: DriverName): Promise<RunClients> {
  if (name === "node") return runClientsNode;
  const { runClientsK6 } = await import("./k6-driver.js");
  return runClientsK6;
}
