// The order a seed keeps with a window of writes in flight, and the sequences the server assigned,
// read back in whatever order its answers came. Pure. An event's entity is its stream (a project, a
// thread): its writes go one after another. A barrier (every earlier write answered first) stands
// where the resume cursors fall and where the kind changes (a thread names its project), so every
// write after a cursor gets a sequence above every write before it, as the cases' cursors require.
import type { FixtureEvent } from "../../bindings/binding.js";
import type { FixtureMeta } from "../../fixtures/schema.js";
import { sequenceProblem } from "./binding-results.js";
import type { WindowItem } from "./write-window.js";

/** The sequences the server assigned, in place of the fixture's. */
export interface SeededSequences {
  cursor: number;
  latest: number;
  threadCursor: number;
  threadLatest: number;
}

export type CursorMeta = Pick<FixtureMeta, "cursorSequence" | "threadId" | "threadCursorSequence">;

export interface SeedSlot extends WindowItem {
  event: FixtureEvent;
}

/** The events of the binding's kinds, each with its entity and whether it is a barrier (every one when `strict`). */
export function* seedSlots(
  events: Iterable<FixtureEvent>,
  kinds: readonly string[],
  meta: CursorMeta,
  strict: boolean,
): Generator<SeedSlot> {
  let previous: FixtureEvent | null = null;
  for (const event of events) {
    if (!kinds.includes(event.aggregateKind)) continue;
    const crosses = (cursor: number) =>
      previous !== null && cursor > 0 && previous.sequence <= cursor && event.sequence > cursor;
    const barrier =
      strict ||
      (previous !== null && previous.aggregateKind !== event.aggregateKind) ||
      crosses(meta.cursorSequence) ||
      crosses(meta.threadCursorSequence);
    yield { event, key: `${event.aggregateKind}:${event.streamId}`, barrier };
    previous = event;
  }
}

/** "event 15 (project.created)" */
export const eventAbout = (e: FixtureEvent): string => `event ${e.sequence} (${e.type})`;

/**
 * The sequences as the writes end. `begin` when a write begins (its entity's previous write and,
 * at a barrier, every earlier one have ended) gives what its sequence must be above; `end` checks it.
 */
export class AssignedSequences {
  readonly sequences: SeededSequences = { cursor: 0, latest: 0, threadCursor: 0, threadLatest: 0 };
  /** The highest sequence before the last barrier. */
  private floor = 0;
  private readonly lastOfKey = new Map<string, number>();
  private readonly byValue = new Map<number, FixtureEvent>();

  constructor(
    private readonly meta: CursorMeta,
    private readonly strict: boolean,
  ) {}

  begin(slot: SeedSlot): number {
    if (slot.barrier) this.floor = this.sequences.latest;
    return Math.max(this.floor, this.lastOfKey.get(slot.key) ?? 0);
  }

  /** Records the sequence `assigned` to the slot's write; the reason it cannot be, or null. */
  end(slot: SeedSlot, assigned: unknown, after: number, call: string): string | null {
    const tail = this.strict
      ? undefined
      : `not above ${after} (a write it follows: its entity's previous write, or one before a cursor)`;
    const problem = sequenceProblem(assigned, after, call, tail);
    if (problem) return problem;
    const v = assigned as number;
    const earlier = this.byValue.get(v);
    if (earlier) return `${call} returned sequence ${v}, which the write of ${eventAbout(earlier)} returned too`;
    const { event } = slot;
    this.byValue.set(v, event);
    this.lastOfKey.set(slot.key, v);
    const s = this.sequences;
    const { meta } = this;
    if (event.sequence <= meta.cursorSequence) s.cursor = Math.max(s.cursor, v);
    s.latest = Math.max(s.latest, v);
    if (event.aggregateKind === "thread" && event.streamId === meta.threadId) {
      if (event.sequence <= meta.threadCursorSequence) s.threadCursor = Math.max(s.threadCursor, v);
      s.threadLatest = Math.max(s.threadLatest, v);
    }
    return null;
  }
}
