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

/** What the healthy client keeps while it runs; each step below reads and updates it. */
interface HealthyState {
  options: HealthyOptions;
  timeoutMs: number;
  /** Our own events' titles start with this. */
  prefix: string;
  report: HealthyReport;
  ws: WebSocket;
  stopping: boolean;
  lastSequence: number;
  projectIds: string[];
  seenTitles: Map<string, number>;
  confirmed: Set<string>;
  lastOwnIndex: number;
  nextId: number;
  pendingDispatch: Map<string, { title: string; resolve: () => void }>;
  wakeSeen: (() => void) | null;
}

/** An error the client saw (the first 20 are kept). */
function note(state: HealthyState, text: string): void {
  if (state.report.errors.length < 20) state.report.errors.push(text);
}

/** A value of the live subscription: the snapshot, the completion marker (synchronized), or a live event. */
function onLiveValue(state: HealthyState, v: ShellValue, synchronized: () => void): void {
  if (v.kind === "snapshot") {
    const body = v.snapshot ?? v;
    // a cold snapshot in the reference shape lists every project twice (authoritative, enrichment)
    for (const p of body.projects ?? [])
      if (typeof p.id === "string" && !state.projectIds.includes(p.id)) state.projectIds.push(p.id);
    if (typeof body.snapshotSequence === "number") state.lastSequence = body.snapshotSequence;
    return;
  }
  if (v[COMPLETION_MARKER.field as "kind"] === COMPLETION_MARKER.value) {
    synchronized();
    return;
  }
  if (v.kind !== "project.updated" || typeof v.sequence !== "number") return;
  state.report.liveItems++;
  if (v.sequence <= state.lastSequence) {
    state.report.outOfOrder++;
    note(state, `live event sequence ${v.sequence} after ${state.lastSequence}`);
  }
  state.lastSequence = Math.max(state.lastSequence, v.sequence);
  const title = typeof v.project?.title === "string" ? v.project.title : "";
  if (title.startsWith(state.prefix)) onOwnEvent(state, title);
}

/** One of our own events arrived live: exactly once, and after the ones before it. */
function onOwnEvent(state: HealthyState, title: string): void {
  const count = (state.seenTitles.get(title) ?? 0) + 1;
  state.seenTitles.set(title, count);
  if (count > 1) {
    state.report.duplicated++;
    note(state, `live event for ${title} delivered ${count} times`);
  }
  const index = Number(title.slice(state.prefix.length));
  if (index <= state.lastOwnIndex && count === 1) {
    state.report.outOfOrder++;
    note(state, `own event ${index} arrived after ${state.lastOwnIndex}`);
  }
  state.lastOwnIndex = Math.max(state.lastOwnIndex, index);
  state.wakeSeen?.();
}

/** A frame on the healthy connection: the subscription's chunks (ACKed), commands' Exits, or trouble. */
function onFrame(state: HealthyState, data: Buffer, synchronized: () => void): void {
  const frame = decodeFrame(data.toString("utf8"));
  if (frame.type === "chunk" && frame.requestId === SUBSCRIBE_ID) {
    for (const v of frame.values) onLiveValue(state, v as ShellValue, synchronized);
    state.ws.send(encodeAck(SUBSCRIBE_ID));
  } else if (frame.type === "exit" && frame.requestId === SUBSCRIBE_ID) {
    note(state, `live subscription ended: ${frame.success ? "success" : frame.reason}`);
  } else if (frame.type === "exit") {
    const pending = state.pendingDispatch.get(frame.requestId);
    if (pending) {
      state.pendingDispatch.delete(frame.requestId);
      if (frame.success) state.confirmed.add(pending.title);
      else note(state, `command ${pending.title} failed: ${frame.reason}`);
      pending.resolve();
    }
  } else if (frame.type === "defect") note(state, `defect on the healthy connection: ${frame.reason}`);
  else if (frame.type === "bad") note(state, `bad frame on the healthy connection: ${frame.reason}`);
}

const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref?.();
  });

/** Run: a steady trickle of commands, each waiting for its Exit, whose events the subscription must deliver. */
async function dispatchLoop(state: HealthyState): Promise<void> {
  const { ws, report, timeoutMs } = state;
  for (let n = 0; !state.stopping && ws.readyState === WebSocket.OPEN; n++) {
    const projectId = state.projectIds[n % Math.max(1, state.projectIds.length)];
    if (projectId === undefined) {
      note(state, "the snapshot listed no projects to update");
      return;
    }
    const id = String(state.nextId++);
    const title = `${state.prefix}${n}`;
    report.dispatched++;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        state.pendingDispatch.delete(id);
        note(state, `command ${title} got no Exit within ${timeoutMs} ms`);
        resolve();
      }, timeoutMs);
      state.pendingDispatch.set(id, {
        title,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      ws.send(encodeRequest(id, DISPATCH_TAG, { type: "project.update", projectId, title }));
    });
    await pause(state.options.dispatchEveryMs ?? 50);
  }
}

/** Run: repeated catch-ups through the shared protocol client, cold snapshots and resumes alternating. */
async function catchupLoop(state: HealthyState): Promise<void> {
  const { options, report } = state;
  for (let n = 0; !state.stopping; n++) {
    // Resumes start from a little behind the live position.
    const after = n % 2 === 0 ? null : Math.max(0, state.lastSequence - 10);
    const result = await runNodeSession({
      url: options.url,
      token: options.token,
      subscribePayload:
        after === null ? { requestCompletionMarker: true } : { afterSequence: after, requestCompletionMarker: true },
      ackDelayMs: 0,
      timeoutMs: state.timeoutMs,
    });
    report.catchups++;
    if (!result.ok && report.catchupFailures.length < 20) report.catchupFailures.push(String(result.error));
    await pause(options.catchupEveryMs ?? 100);
  }
}

/** Drain: every confirmed event must reach the live subscription; waits for the stragglers (bounded). */
async function drainConfirmed(state: HealthyState): Promise<void> {
  const { confirmed, seenTitles, ws } = state;
  const allSeen = () => [...confirmed].every((t) => seenTitles.has(t));
  const deadline = performance.now() + 5_000;
  while (!allSeen() && performance.now() < deadline && ws.readyState === WebSocket.OPEN) {
    await new Promise<void>((resolve) => {
      state.wakeSeen = resolve;
      const t = setTimeout(resolve, Math.max(1, deadline - performance.now()));
      t.unref?.();
    });
    state.wakeSeen = null;
  }
  state.report.missing = [...confirmed].filter((t) => !seenTitles.has(t)).length;
  if (state.report.missing > 0)
    note(state, `${state.report.missing} confirmed events never arrived on the live subscription`);
}

/** Set-up: the connection and its live subscription; `ready` settles once it synchronized. */
function connect(options: HealthyOptions, timeoutMs: number) {
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
  const synchronized = () => {
    clearTimeout(readyTimer);
    resolveReady();
  };
  return { ws, ready, readyTimer, synchronized, rejectReady };
}

export function startHealthyClient(options: HealthyOptions): HealthyClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const link = connect(options, timeoutMs);
  const { ws, ready } = link;
  const state: HealthyState = {
    options,
    timeoutMs,
    prefix: `healthy-${process.pid}-${Math.floor(performance.now())}-`,
    report: emptyHealthyReport(),
    ws,
    stopping: false,
    lastSequence: -1,
    projectIds: [],
    seenTitles: new Map(),
    confirmed: new Set(),
    lastOwnIndex: -1,
    nextId: 2,
    pendingDispatch: new Map(),
    wakeSeen: null,
  };
  ws.on("open", () => {
    ws.send(encodeRequest(SUBSCRIBE_ID, SUBSCRIBE_TAG, { requestCompletionMarker: true }));
  });
  ws.on("message", (data: Buffer) => onFrame(state, data, link.synchronized));
  ws.on("error", (e) => note(state, `healthy connection error: ${e.message}`));
  ws.on("close", (code) => {
    if (!state.stopping) note(state, `healthy connection closed (code ${code})`);
    link.rejectReady(new Error(`healthy connection closed (code ${code}) before synchronized`));
    for (const p of state.pendingDispatch.values()) p.resolve();
  });
  // A loop that throws is a healthy-client failure, not something to swallow.
  const loop = async (run: (s: HealthyState) => Promise<void>) => {
    await ready;
    await run(state);
  };
  const loops = Promise.allSettled([loop(dispatchLoop), loop(catchupLoop)]).then((results) => {
    for (const r of results)
      if (r.status === "rejected") note(state, `healthy client loop failed: ${String(r.reason)}`);
  });
  const stop = async (): Promise<HealthyReport> => {
    state.stopping = true;
    await loops;
    await drainConfirmed(state);
    clearTimeout(link.readyTimer);
    await closeWithin(ws);
    return state.report;
  };
  return { ready, stop };
}
