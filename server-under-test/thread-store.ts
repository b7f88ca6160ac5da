// The threads' side of the event store: each thread's events (fixture rows, read-only, plus events
// appended at run time, kept in memory), its high-water mark, a bounded look at a replay range
// before anything is decoded, and the projection a snapshot carries, folded from its events.
import type Database from "better-sqlite3";

export const THREAD_CREATED = "thread.created";
export const MESSAGE_UPDATED = "message.updated";

/** One stored thread event, not yet decoded. */
export interface StoredThreadEvent {
  sequence: number;
  eventId: string;
  threadId: string;
  type: string;
  occurredAt: string;
  payloadJson: string;
}

/** What replaying a range would cost, read without decoding it (at most maxEvents + 1 rows are looked at). */
export interface ThreadReplayStats {
  events: number;
  /** UTF-8 bytes of the stored payload_json of those events. */
  rawPayloadBytes: number;
  /** The thread's creation event lies in the range. */
  hasCreateEvent: boolean;
}

interface Row {
  sequence: number;
  event_id: string;
  stream_id: string;
  event_type: string;
  occurred_at: string;
  payload_json: string;
}

export class ThreadStore {
  private readonly appended = new Map<string, StoredThreadEvent[]>();
  private readonly created: Database.Statement<[string], { one: number }>;
  private readonly latest: Database.Statement<[string], { seq: number | null }>;
  private readonly range: Database.Statement<[string, number, number, number], Row>;
  private readonly stats: Database.Statement<
    [string, number, number, number],
    { events: number; bytes: number | null; created: number | null }
  >;
  private appendedCount = 0;

  /** `nextSequence` hands out the store's next global sequence (threads and projects share one log). */
  constructor(
    db: Database.Database,
    private readonly nextSequence: () => number,
  ) {
    const columns = "sequence, event_id, stream_id, event_type, occurred_at, payload_json";
    this.created = db.prepare(
      "SELECT 1 AS one FROM orchestration_events WHERE stream_id = ? AND aggregate_kind = 'thread' AND event_type = 'thread.created' LIMIT 1",
    );
    this.latest = db.prepare(
      "SELECT MAX(sequence) AS seq FROM orchestration_events WHERE stream_id = ? AND aggregate_kind = 'thread'",
    );
    this.range = db.prepare(
      `SELECT ${columns} FROM orchestration_events WHERE stream_id = ? AND aggregate_kind = 'thread' AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?`,
    );
    this.stats = db.prepare(
      `SELECT COUNT(*) AS events, SUM(LENGTH(CAST(payload_json AS BLOB))) AS bytes, MAX(event_type = 'thread.created') AS created
         FROM (SELECT payload_json, event_type FROM orchestration_events
                WHERE stream_id = ? AND aggregate_kind = 'thread' AND sequence > ? AND sequence <= ?
                ORDER BY sequence LIMIT ?)`,
    );
  }

  exists(threadId: string): boolean {
    return this.created.get(threadId) !== undefined || (this.appended.get(threadId)?.length ?? 0) > 0;
  }

  /** The thread's last sequence (0 when it has no events). */
  highWater(threadId: string): number {
    const tail = this.appended.get(threadId);
    if (tail && tail.length > 0) return (tail[tail.length - 1] as StoredThreadEvent).sequence;
    return this.latest.get(threadId)?.seq ?? 0;
  }

  /** Cost of the events in (after, through], looking at no more than maxEvents + 1 of them. */
  replayStats(threadId: string, after: number, through: number, maxEvents: number): ThreadReplayStats {
    const row = this.stats.get(threadId, after, through, maxEvents + 1);
    const stats = { events: row?.events ?? 0, rawPayloadBytes: row?.bytes ?? 0, hasCreateEvent: row?.created === 1 };
    for (const e of this.appended.get(threadId) ?? []) {
      if (e.sequence <= after || e.sequence > through || stats.events > maxEvents) continue;
      stats.events += 1;
      stats.rawPayloadBytes += Buffer.byteLength(e.payloadJson, "utf8");
      stats.hasCreateEvent ||= e.type === THREAD_CREATED;
    }
    return stats;
  }

  /** The thread's events in (after, through], in sequence order, at most `limit` of them. */
  events(threadId: string, after: number, through: number, limit = Number.MAX_SAFE_INTEGER): StoredThreadEvent[] {
    const out: StoredThreadEvent[] = this.range.all(threadId, after, through, limit).map((r) => ({
      sequence: r.sequence,
      eventId: r.event_id,
      threadId: r.stream_id,
      type: r.event_type,
      occurredAt: r.occurred_at,
      payloadJson: r.payload_json,
    }));
    for (const e of this.appended.get(threadId) ?? []) {
      if (out.length >= limit) break;
      if (e.sequence > after && e.sequence <= through) out.push(e);
    }
    return out;
  }

  /** Appends an event to an existing thread, in memory (the fixture file is never written). */
  append(threadId: string, type: string, payload: unknown, now: Date): StoredThreadEvent | undefined {
    if (!this.exists(threadId)) return undefined;
    const sequence = this.nextSequence();
    const event: StoredThreadEvent = {
      sequence,
      eventId: `appended-${++this.appendedCount}`,
      threadId,
      type,
      occurredAt: now.toISOString(),
      payloadJson: JSON.stringify(payload),
    };
    const tail = this.appended.get(threadId) ?? [];
    tail.push(event);
    this.appended.set(threadId, tail);
    return event;
  }
}
