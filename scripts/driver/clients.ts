// Drivers as the bench sees them (RunClients). "node" runs the shared client (scenarios/lib)
// through the Node driver (scripts/driver/node.ts) in this process, or in a worker thread for
// memory cells; "k6" hands the same sessions to k6 (scripts/driver/k6.ts). The Node driver (and `ws`)
// is loaded at the first session: the CLI reads DRIVERS from here to parse its flags.
import { Worker } from "node:worker_threads";
import { findK6, K6_NOT_FOUND, runSessionsK6 } from "./k6.js";
import type { RunSessionsOptions } from "./node.js";
import type { ClientsRun, PhaseName, RunClients, SessionSpec } from "./session-spec.js";

/** What can run the clients: the shared client in Node, or under k6. */
export const DRIVERS = ["node", "k6"] as const;
export type DriverName = (typeof DRIVERS)[number];

export class DriverError extends Error {
  override readonly name = "DriverError";
}

/** The driver options for a session spec (the shared client's own option names). */
export function driverOptions(clients: number, spec: SessionSpec): RunSessionsOptions {
  return {
    clients,
    url: spec.url,
    token: spec.token,
    headers: spec.headers,
    subscribeTag: spec.subscribeTag,
    subscribePayload: spec.subscribePayload,
    completion: spec.completion,
    ackDelayMs: spec.ackDelayMs,
    holdMs: spec.holdMs,
    probe: spec.probe,
    timeoutMs: spec.timeoutMs,
  };
}

/** C concurrent sessions of the shared client over `ws`, in this process. */
export const runClientsNode: RunClients = async (clients, spec, onPhase) => {
  const { runSessions } = await import("./node.js");
  const { rows, loopLag } = await runSessions({
    ...driverOptions(clients, spec),
    onPhase: onPhase ? (index, name) => onPhase(index, name as PhaseName) : undefined,
  });
  return { rows, loopLag };
};

const WORKER = new URL("./clients-worker.js", import.meta.url);

/**
 * The Node driver in a worker thread: the same sessions on another event loop. Memory cells use it
 * so the sampler on the main thread keeps its cadence while clients parse megabytes of frames.
 */
export const runClientsInWorker: RunClients = (clients, spec, onPhase) =>
  new Promise<ClientsRun>((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: { clients, spec } });
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
    };
    const fail = (e: Error) => {
      if (settled) return;
      settle();
      reject(e);
    };
    // Each session has its own timeout; this one only guards against a wedged worker.
    const limitMs = spec.timeoutMs + 10_000;
    const timer = setTimeout(() => fail(new Error(`client worker gave no result within ${limitMs} ms`)), limitMs);
    worker.on("message", (m: { phase?: PhaseName; index?: number; result?: ClientsRun; error?: string }) => {
      if (m.result) {
        if (settled) return;
        settle();
        resolve(m.result);
      } else if (m.error !== undefined) {
        fail(new Error(m.error));
      } else if (m.phase !== undefined && onPhase) {
        onPhase(m.index ?? 0, m.phase);
      }
    });
    worker.on("error", (e) => fail(e));
    worker.on("exit", (code) => fail(new Error(`client worker exited (code ${code}) before its result`)));
  });

/** The same sessions under k6 (scenarios/memory.js). */
export const runClientsK6: RunClients = async (clients, spec) => {
  const { rows } = await runSessionsK6(driverOptions(clients, spec));
  return { rows, loopLag: null };
};

/** Throws a DriverError unless k6 is on PATH. */
export function requireK6(): void {
  if (!findK6()) throw new DriverError(K6_NOT_FOUND);
}

export function driverFor(name: DriverName): RunClients {
  if (name === "node") return runClientsNode;
  requireK6();
  return runClientsK6;
}
