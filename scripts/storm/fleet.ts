// The storm driver: N sessions of the shared client spread over worker threads (so one event loop
// never parses every catch-up frame), each connecting at its ramp offset after one common start.
// Times come back on one axis: ms since the storm's start.
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type { SessionSpec } from "../driver/session-spec.js";
import { compiledPath } from "../server-process/process.js";
import { rampOffsets, resumePlan, type StormSession } from "./figures.js";
import type { StormWorkerData, StormWorkerResult } from "./worker.js";

/** Sessions per worker thread: a few thousand idle-ACK sessions keep one loop's lag low. */
export const SESSIONS_PER_WORKER = 2500;
/** Clients that send the unary probe, spread through the storm. */
const PROBES = 50;
const READY_TIMEOUT_MS = 30_000;
/** The common start lies this far after every worker said ready, so none starts late. */
const GO_LEAD_MS = 20;

export interface StormRunOptions {
  clients: number;
  rampMs: number;
  /** Share of clients that resume (the rest take a cold snapshot), 0..1. */
  resumeRatio: number;
  /** The resume session (its payload carries the cursor) and the snapshot payload. */
  spec: SessionSpec;
  snapshotPayload: Record<string, unknown>;
  /** Worker threads; default: enough for SESSIONS_PER_WORKER each, at most the cores. */
  workers?: number;
}

export interface StormRun {
  sessions: StormSession[];
  /** Epoch ms of the storm's start (performance.timeOrigin + now), to place samples on the same axis. */
  startedAtEpochMs: number;
  /** The worst worker's event-loop lag (ms). */
  loopLag: { p50: number; p99: number; max: number };
  workers: number;
  /** Probe latencies of the clients that probed (ms). */
  probeMs: number[];
}

// The compiled worker; from TypeScript sources (tests) the one in dist/, which the test setup builds.
const WORKER = compiledPath(
  new URL("./worker.js", import.meta.url),
  new URL("../../dist/scripts/storm/worker.js", import.meta.url),
);

export function workerCount(clients: number, cores = availableParallelism()): number {
  return Math.max(1, Math.min(Math.ceil(clients / SESSIONS_PER_WORKER), Math.max(1, cores)));
}

/** Runs a storm; rejects only when a worker fails (each session has its own timeout). */
export async function runStormClients(o: StormRunOptions): Promise<StormRun> {
  const n = workerCount(o.clients, o.workers ?? availableParallelism());
  const offsets = rampOffsets(o.clients, o.rampMs);
  const resumes = resumePlan(o.clients, o.resumeRatio);
  const probeEvery = Math.max(1, Math.ceil(o.clients / PROBES));
  const shares: StormWorkerData["clients"][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < o.clients; i++) {
    shares[i % n]?.push({
      index: i,
      offsetMs: offsets[i] ?? 0,
      resume: resumes[i] ?? true,
      probe: i % probeEvery === 0,
    });
  }
  const workers = shares.map(
    (clients) => new Worker(WORKER, { workerData: { spec: o.spec, snapshotPayload: o.snapshotPayload, clients } }),
  );
  // Each session has its own timeout; this only guards against a wedged worker.
  const limitMs = o.spec.timeoutMs + o.rampMs + READY_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`storm workers gave no result within ${limitMs} ms`)), limitMs);
  });
  try {
    const ready = workers.map((w) => message(w, "ready"));
    await Promise.race([Promise.all(ready), deadline]);
    const goAt = performance.timeOrigin + performance.now() + GO_LEAD_MS;
    const results = workers.map((w) => message(w, "result"));
    for (const w of workers) w.postMessage({ go: goAt });
    const done = (await Promise.race([Promise.all(results), deadline])) as StormWorkerResult[];
    const sessions: StormSession[] = new Array(o.clients);
    for (const r of done) {
      for (const s of r.sessions) {
        sessions[s.index] = {
          ok: s.ok,
          error: s.error,
          resume: s.resume,
          startMs: s.connectAt - goAt,
          caughtUpAtMs: s.caughtUpAt === null ? null : s.caughtUpAt - goAt,
          completionMs: s.completionMs,
        };
      }
    }
    const lags = done.map((r) => r.loopLag);
    return {
      sessions: sessions.filter(Boolean),
      startedAtEpochMs: goAt,
      loopLag: {
        p50: Math.max(0, ...lags.map((l) => l.p50)),
        p99: Math.max(0, ...lags.map((l) => l.p99)),
        max: Math.max(0, ...lags.map((l) => l.max)),
      },
      workers: n,
      probeMs: done.flatMap((r) => r.sessions.map((s) => s.probeMs).filter((x): x is number => x !== null)),
    };
  } finally {
    clearTimeout(timer);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** The worker's next message carrying `key` (rejects on its error or exit). */
function message(w: Worker, key: "ready" | "result"): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (m.error !== undefined) return finish(() => reject(new Error(`storm worker: ${String(m.error)}`)));
      if (key in m) finish(() => resolve(m[key]));
    };
    const onError = (e: Error) => finish(() => reject(e));
    const onExit = (code: number) =>
      finish(() => reject(new Error(`storm worker exited (code ${code}) before its ${key}`)));
    const finish = (fn: () => void) => {
      w.off("message", onMessage);
      w.off("error", onError);
      w.off("exit", onExit);
      fn();
    };
    w.on("message", onMessage);
    w.on("error", onError);
    w.on("exit", onExit);
  });
}
