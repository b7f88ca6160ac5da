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

/** Clients in a worker thread that outlives one batch: `run` takes a batch at a time; `close` ends the thread. */
export interface WorkerClients {
  run: RunClients;
  close(): Promise<void>;
  /** Threads started so far: one, plus one after each batch that failed. */
  threads(): number;
}

interface Batch {
  worker: Worker;
  onPhase: Parameters<RunClients>[2];
  resolve(run: ClientsRun): void;
  fail(e: Error): void;
}

/**
 * The Node driver in a worker thread: the same sessions on another event loop. Memory cells use it
 * so the sampler on the main thread keeps its cadence while clients parse megabytes of frames. The
 * thread is kept from batch to batch, so no trial pays its start and the driver's load (110 ms on an
 * idle machine, up to 430 ms beside a server starting ahead); between batches it holds the process
 * open no longer (unref). A thread that failed or timed out is ended; the next batch starts another.
 */
export function workerClients(): WorkerClients {
  let worker: Worker | null = null;
  let batch: Batch | null = null;
  let threads = 0;
  // Events of a thread already given up on (a late exit, say) never reach a later batch.
  const batchOf = (w: Worker) => (batch?.worker === w ? batch : null);
  const spawn = (): Worker => {
    const w = new Worker(WORKER);
    threads++;
    w.on("message", (m: { phase?: PhaseName; index?: number; result?: ClientsRun; error?: string }) => {
      const b = batchOf(w);
      if (m.result) b?.resolve(m.result);
      else if (m.error !== undefined) b?.fail(new Error(m.error));
      else if (m.phase !== undefined) b?.onPhase?.(m.index ?? 0, m.phase);
    });
    w.on("error", (e) => batchOf(w)?.fail(e));
    w.on("exit", (code) => {
      if (worker === w) worker = null;
      batchOf(w)?.fail(new Error(`client worker exited (code ${code}) before its result`));
    });
    return w;
  };
  const run: RunClients = (clients, spec, onPhase) =>
    new Promise<ClientsRun>((resolve, reject) => {
      if (batch) return reject(new Error("client worker: a batch is already running"));
      const w = worker ?? spawn();
      worker = w;
      // Each session has its own timeout; this one only guards against a wedged worker.
      const limitMs = spec.timeoutMs + 10_000;
      const timer = setTimeout(
        () => batchOf(w)?.fail(new Error(`client worker gave no result within ${limitMs} ms`)),
        limitMs,
      );
      const settle = () => {
        clearTimeout(timer);
        batch = null;
        w.unref();
      };
      batch = {
        worker: w,
        onPhase,
        resolve: (r) => {
          settle();
          resolve(r);
        },
        fail: (e) => {
          settle();
          if (worker === w) worker = null;
          void w.terminate();
          reject(e);
        },
      };
      w.ref();
      w.postMessage({ clients, spec });
    });
  return {
    run,
    close: async () => {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
    threads: () => threads,
  };
}

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
