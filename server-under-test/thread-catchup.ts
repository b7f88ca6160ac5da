// Which catch-up a thread subscriber gets, with the reference server's thread budgets: a replay of
// the thread's own events after its cursor when that is cheap (at most 128 events, 1 MiB of stored
// payload read before decoding, 1 MiB encoded after), else a snapshot of the thread's projection.
// A cursor ahead of the thread's high-water mark, or a range holding the thread's creation, also
// gets a snapshot. Sequences are global, so the distance from the cursor says nothing about how
// many of this thread's events follow it: the bounded read decides.
import type { StoredThreadEvent, ThreadReplayStats, ThreadStore } from "./thread-store.js";
import { THREAD_CREATED } from "./thread-store.js";

export const THREAD_REPLAY_MAX_EVENTS = 128;
export const THREAD_REPLAY_MAX_ENCODED_BYTES = 1_048_576;
/** Stored payload JSON decoded for one resume, checked before decoding (decoded objects cost more). */
export const THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES = 1_048_576;

export const THREAD_FALLBACKS = ["cursor-ahead", "events", "stored-bytes", "created", "encoded-bytes"] as const;
export type ThreadFallback = (typeof THREAD_FALLBACKS)[number];

/** A thread event as it goes on the wire. */
export interface ThreadEventItem {
  kind: "event";
  sequence: number;
  event: { id: string; threadId: string; type: string; occurredAt: string; payload: unknown };
}

/** A thread's projection, folded from its events: the thread, its messages and its turn items. */
export interface ThreadProjection {
  thread: unknown;
  messages: unknown[];
  turnItems: unknown[];
  updatedAt: string;
}

export interface ThreadSnapshotItem {
  kind: "snapshot";
  snapshotSequence: number;
  projection: ThreadProjection;
}

export type ThreadCatchUpItem = ThreadSnapshotItem | ThreadEventItem;

/** Before reading the replay: replay, or a snapshot and why. */
export function preflightThreadResume(input: {
  afterSequence: number;
  highWater: number;
  stats: ThreadReplayStats;
}): { mode: "replay" } | { mode: "snapshot"; reason: ThreadFallback } {
  if (input.afterSequence > input.highWater) return { mode: "snapshot", reason: "cursor-ahead" };
  if (input.stats.events > THREAD_REPLAY_MAX_EVENTS) return { mode: "snapshot", reason: "events" };
  if (input.stats.rawPayloadBytes > THREAD_REPLAY_MAX_RAW_PAYLOAD_BYTES) {
    return { mode: "snapshot", reason: "stored-bytes" };
  }
  if (input.stats.hasCreateEvent) return { mode: "snapshot", reason: "created" };
  return { mode: "replay" };
}

/** UTF-8 bytes of the items as JSON, one by one (the reference server's encoded-replay measure). */
export function encodedBytes(items: readonly unknown[]): number {
  let total = 0;
  for (const item of items) total += Buffer.byteLength(JSON.stringify(item) ?? "", "utf8");
  return total;
}

export function eventItem(e: StoredThreadEvent): ThreadEventItem {
  return {
    kind: "event",
    sequence: e.sequence,
    event: {
      id: e.eventId,
      threadId: e.threadId,
      type: e.type,
      occurredAt: e.occurredAt,
      payload: JSON.parse(e.payloadJson) as unknown,
    },
  };
}

/** Folds a thread's events into its projection: later versions of a message or item replace earlier ones. */
export function foldProjection(events: readonly StoredThreadEvent[]): ThreadProjection {
  let thread: unknown = null;
  const messages = new Map<string, unknown>();
  const turnItems = new Map<string, unknown>();
  let updatedAt = "";
  for (const e of events) {
    const payload = JSON.parse(e.payloadJson) as { id?: string };
    if (e.type === THREAD_CREATED) thread = payload;
    else if (e.type === "message.updated") messages.set(String(payload.id), payload);
    else if (e.type === "turn-item.updated") turnItems.set(String(payload.id), payload);
    updatedAt = e.occurredAt;
  }
  return { thread, messages: [...messages.values()], turnItems: [...turnItems.values()], updatedAt };
}

export type ThreadCatchUp =
  | { ok: true; items: ThreadCatchUpItem[]; sequence: number; fallback: ThreadFallback | null }
  | { ok: false };

/**
 * Reads a thread's catch-up synchronously: its items and the sequence live events continue after
 * (the thread's high-water mark now). `ok: false` when the thread does not exist.
 */
export function readThreadCatchUp(
  store: ThreadStore,
  threadId: string,
  afterSequence: number | undefined,
): ThreadCatchUp {
  if (!store.exists(threadId)) return { ok: false };
  const highWater = store.highWater(threadId);
  const snapshot = (fallback: ThreadFallback | null): ThreadCatchUp => ({
    ok: true,
    items: [
      {
        kind: "snapshot",
        snapshotSequence: highWater,
        projection: foldProjection(store.events(threadId, 0, highWater)),
      },
    ],
    sequence: highWater,
    fallback,
  });
  if (afterSequence === undefined) return snapshot(null);
  const stats = store.replayStats(threadId, afterSequence, highWater, THREAD_REPLAY_MAX_EVENTS);
  const plan = preflightThreadResume({ afterSequence, highWater, stats });
  if (plan.mode === "snapshot") return snapshot(plan.reason);
  const items = store.events(threadId, afterSequence, highWater, THREAD_REPLAY_MAX_EVENTS + 1).map(eventItem);
  if (encodedBytes(items) > THREAD_REPLAY_MAX_ENCODED_BYTES) return snapshot("encoded-bytes");
  return { ok: true, items, sequence: highWater, fallback: null };
}
