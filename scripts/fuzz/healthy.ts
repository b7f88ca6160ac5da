// The healthy client that runs beside the fuzzer: one long-lived subscription that ACKs every chunk
// and checks that every live event arrives exactly once and in sequence order, a steady trickle of
// commands whose events it expects to see, and repeated catch-ups through the shared protocol client
// (scenarios/lib runSession, wired by driver/node-session). Any error it sees is a fuzz failure: bad traffic on other connections
// must not disturb it.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { decodeFrame, encodeAck, encodeRequest } from "../../scenarios/lib/framing.js";
import { COMPLETION_MARKER, SUBSCRIBE_TAG } from "../../scenarios/lib/protocol.js";
import { runNodeSession } from "../driver/node-session.js";
import { DISPATCH_TAG } from "./frames.js";
import { closeWithin } from "./ws-close.js";

export interface HealthyOptions {
  url: string;
  token: string;
  /** Pause between catch-up sessions (ms). */
  catchupEveryMs?: number;
  /** Pause between commands (ms); each waits for its Exit first. */
  dispatchEveryMs?: number;
  timeoutMs?: number;
}

export interface HealthyReport {
  catchups: number;
  catchupFailures: string[];
  /** Live items seen (all of them, including events appended by others). */
  liveItems: number;
  dispatched: number;
  /** Our events (title with our prefix) the server confirmed but the subscription never delivered. */
  missing: number;
  duplicated: number;
  outOfOrder: number;
  errors: string[];
}

const SUBSCRIBE_ID = "1";

interface ShellValue {
  kind?: unknown;
  sequence?: unknown;
  snapshotSequence?: unknown;
  projects?: { id?: unknown }[];
  project?: { id?: unknown; title?: unknown };
  /** The reference item shape nests the snapshot body here. */
  snapshot?: { snapshotSequence?: unknown; projects?: { id?: unknown }[] };
}

/** A running healthy client; stop() ends it and returns what it saw. */
export interface HealthyClient {
  /** Resolves once the live subscription delivered its catch-up (or rejects after timeoutMs). */
  readonly ready: Promise<void>;
  stop(): Promise<HealthyReport>;
}

/** A report with nothing seen yet. */
export function emptyHealthyReport(): HealthyReport {
  return {
    catchups: 0,
    catchupFailures: [],
    liveItems: 0,
    dispatched: 0,
    missing: 0,
    duplicated: 0,
    outOfOrder: 0,
    errors: [],
  };
}

export function startHealthyClient(options: HealthyOptions): HealthyClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const prefix = `healthy-${process.pid}-${Math.floor(performance.now())}-`;
  const report = emptyHealthyReport();
  const error = (text: string) => {
    if (report.errors.length < 20) report.errors.push(text);
  };
  let stopping = false;
  let lastSequence = -1;
  const projectIds: string[] = [];
  const seenTitles = new Map<string, number>();
  const confirmed = new Set<string>();
  let lastOwnIndex = -1;
  let nextId = 2;
  const pendingDispatch = new Map<string, { title: string; resolve: () => void }>();
  let wakeSeen: (() => void) | null = null;

  const ws = new WebSocket(options.url, {
    headers: { authorization: `Bearer ${options.token}` },
    perMessageDeflate: false,
    handshakeTimeout: timeoutMs,
    maxPayload: 256 * 1024 * 1024,
  });
  let resolveReady: () => void = () => {};
  let rejectReady: (e: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {});
  const readyTimer = setTimeout(
    () => rejectReady(new Error(`healthy subscription not synchronized in ${timeoutMs} ms`)),
    timeoutMs,
  );

  const onValue = (v: ShellValue) => {
    if (v.kind === "snapshot") {
      const body = v.snapshot ?? v;
      // a cold snapshot in the reference shape lists every project twice (authoritative, enrichment)
      for (const p of body.projects ?? [])
        if (typeof p.id === "string" && !projectIds.includes(p.id)) projectIds.push(p.id);
      if (typeof body.snapshotSequence === "number") lastSequence = body.snapshotSequence;
      return;
    }
    if (v[COMPLETION_MARKER.field as "kind"] === COMPLETION_MARKER.value) {
      clearTimeout(readyTimer);
      resolveReady();
      return;
    }
    if (v.kind !== "project.updated" || typeof v.sequence !== "number") return;
    report.liveItems++;
    if (v.sequence <= lastSequence) {
      report.outOfOrder++;
      error(`live event sequence ${v.sequence} after ${lastSequence}`);
    }
    lastSequence = Math.max(lastSequence, v.sequence);
    const title = typeof v.project?.title === "string" ? v.project.title : "";
    if (!title.startsWith(prefix)) return;
    const count = (seenTitles.get(title) ?? 0) + 1;
    seenTitles.set(title, count);
    if (count > 1) {
      report.duplicated++;
      error(`live event for ${title} delivered ${count} times`);
    }
    const index = Number(title.slice(prefix.length));
    if (index <= lastOwnIndex && count === 1) {
      report.outOfOrder++;
      error(`own event ${index} arrived after ${lastOwnIndex}`);
    }
    lastOwnIndex = Math.max(lastOwnIndex, index);
    wakeSeen?.();
  };

  ws.on("open", () => {
    ws.send(encodeRequest(SUBSCRIBE_ID, SUBSCRIBE_TAG, { requestCompletionMarker: true }));
  });
  ws.on("message", (data: Buffer) => {
    const frame = decodeFrame(data.toString("utf8"));
    if (frame.type === "chunk" && frame.requestId === SUBSCRIBE_ID) {
      for (const v of frame.values) onValue(v as ShellValue);
      ws.send(encodeAck(SUBSCRIBE_ID));
    } else if (frame.type === "exit" && frame.requestId === SUBSCRIBE_ID) {
      error(`live subscription ended: ${frame.success ? "success" : frame.reason}`);
    } else if (frame.type === "exit") {
      const pending = pendingDispatch.get(frame.requestId);
      if (pending) {
        pendingDispatch.delete(frame.requestId);
        if (frame.success) confirmed.add(pending.title);
        else error(`command ${pending.title} failed: ${frame.reason}`);
        pending.resolve();
      }
    } else if (frame.type === "defect") error(`defect on the healthy connection: ${frame.reason}`);
    else if (frame.type === "bad") error(`bad frame on the healthy connection: ${frame.reason}`);
  });
  ws.on("error", (e) => error(`healthy connection error: ${e.message}`));
  ws.on("close", (code) => {
    if (!stopping) error(`healthy connection closed (code ${code})`);
    rejectReady(new Error(`healthy connection closed (code ${code}) before synchronized`));
    for (const p of pendingDispatch.values()) p.resolve();
  });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      t.unref?.();
    });

  const dispatchLoop = async () => {
    await ready;
    for (let n = 0; !stopping && ws.readyState === WebSocket.OPEN; n++) {
      const projectId = projectIds[n % Math.max(1, projectIds.length)];
      if (projectId === undefined) {
        error("the snapshot listed no projects to update");
        return;
      }
      const id = String(nextId++);
      const title = `${prefix}${n}`;
      report.dispatched++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          pendingDispatch.delete(id);
          error(`command ${title} got no Exit within ${timeoutMs} ms`);
          resolve();
        }, timeoutMs);
        pendingDispatch.set(id, {
          title,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        ws.send(encodeRequest(id, DISPATCH_TAG, { type: "project.update", projectId, title }));
      });
      await pause(options.dispatchEveryMs ?? 50);
    }
  };

  const catchupLoop = async () => {
    await ready;
    for (let n = 0; !stopping; n++) {
      // Alternate cold snapshots and resumes from a little behind the live position.
      const after = n % 2 === 0 ? null : Math.max(0, lastSequence - 10);
      const result = await runNodeSession({
        url: options.url,
        token: options.token,
        subscribePayload:
          after === null ? { requestCompletionMarker: true } : { afterSequence: after, requestCompletionMarker: true },
        ackDelayMs: 0,
        timeoutMs,
      });
      report.catchups++;
      if (!result.ok && report.catchupFailures.length < 20) report.catchupFailures.push(String(result.error));
      await pause(options.catchupEveryMs ?? 100);
    }
  };

  // A loop that throws is a healthy-client failure, not something to swallow.
  const loops = Promise.allSettled([dispatchLoop(), catchupLoop()]).then((results) => {
    for (const r of results) if (r.status === "rejected") error(`healthy client loop failed: ${String(r.reason)}`);
  });

  const stop = async (): Promise<HealthyReport> => {
    stopping = true;
    await loops;
    // Every confirmed event must reach the live subscription; wait for the stragglers (bounded).
    const allSeen = () => [...confirmed].every((t) => seenTitles.has(t));
    const deadline = performance.now() + 5_000;
    while (!allSeen() && performance.now() < deadline && ws.readyState === WebSocket.OPEN) {
      await new Promise<void>((resolve) => {
        wakeSeen = resolve;
        const t = setTimeout(resolve, Math.max(1, deadline - performance.now()));
        t.unref?.();
      });
      wakeSeen = null;
    }
    report.missing = [...confirmed].filter((t) => !seenTitles.has(t)).length;
    if (report.missing > 0) error(`${report.missing} confirmed events never arrived on the live subscription`);
    clearTimeout(readyTimer);
    await closeWithin(ws);
    return report;
  };

  return { ready, stop };
}
