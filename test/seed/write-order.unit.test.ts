// Where the seed keeps the fixture's order with a window of writes in flight, and what it makes of
// the sequences the server assigned when the answers come back out of order: the resume cursor is
// the highest sequence of a write before the fixture's cursor, and every write after the cursor must
// be above it.
import { describe, expect, it } from "vitest";
import type { FixtureEvent } from "../../bindings/binding.js";
import { AssignedSequences, seedSlots } from "../../scripts/seed/write-order.js";

const event = (sequence: number, type: string, streamId: string, kind = "project"): FixtureEvent => ({
  sequence,
  type,
  aggregateKind: kind,
  streamId,
  occurredAt: "2026-01-01T00:00:00.000Z",
  payload: {},
  metadata: {},
});

// Two projects, a thread (the measured one) with three events, its cursor after the second, then the
// fixture's cursor (6) and two title updates.
const meta = { cursorSequence: 6, threadId: "t", threadCursorSequence: 4 };
const log = [
  event(1, "project.created", "p1"),
  event(2, "project.created", "p2"),
  event(3, "thread.created", "t", "thread"),
  event(4, "message.updated", "t", "thread"),
  event(5, "message.updated", "t", "thread"),
  event(6, "thread.created", "u", "thread"),
  event(7, "project.meta-updated", "p1"),
  event(8, "project.meta-updated", "p2"),
];

describe("seedSlots", () => {
  it("keys each event by its entity and puts a barrier at each cursor and where the kind changes", () => {
    const slots = [...seedSlots(log, ["project", "thread"], meta, false)];
    expect(slots.map((s) => s.key.split(":")[1])).toEqual(["p1", "p2", "t", "t", "t", "u", "p1", "p2"]);
    // 3: threads after projects (a thread names its project); 5: after the thread's cursor; 7: after the cursor.
    expect(slots.filter((s) => s.barrier).map((s) => s.event.sequence)).toEqual([3, 5, 7]);
  });

  it("writes only the binding's kinds; strict order makes every write a barrier", () => {
    const slots = [...seedSlots(log, ["project"], meta, true)];
    expect(slots.map((s) => s.event.sequence)).toEqual([1, 2, 7, 8]);
    expect(slots.every((s) => s.barrier)).toBe(true);
    expect([...seedSlots(log, ["project"], meta, false)].filter((s) => s.barrier).map((s) => s.event.sequence)).toEqual(
      [7],
    );
  });
});

describe("AssignedSequences", () => {
  const call = "the notes binding's write";
  /** Begins and ends the slots in `order` (a schedule the window allows), with the sequences `assigned` gives. */
  const play = (strict: boolean, order: number[], assigned: (n: number) => number, kinds = ["project", "thread"]) => {
    const book = new AssignedSequences(meta, strict);
    const slots = [...seedSlots(log, kinds, meta, strict)];
    const problems: (string | null)[] = [];
    for (const i of order) {
      const slot = slots[i] as (typeof slots)[number];
      problems.push(book.end(slot, assigned(i), book.begin(slot), call));
    }
    return { book, problems };
  };

  it("takes the cursor as the highest sequence before it, whatever order the answers came in", () => {
    // The server answered p2 before p1, and the last write before the cursor (u) below the one before it.
    const seqs = [2, 1, 3, 4, 6, 5, 7, 8];
    const { book, problems } = play(false, [1, 0, 2, 3, 4, 5, 6, 7], (i) => seqs[i] as number);
    expect(problems.every((p) => p === null)).toBe(true);
    expect(book.sequences).toEqual({ cursor: 6, latest: 8, threadCursor: 4, threadLatest: 6 });
  });

  it("refuses a write after the cursor that the server put below a write before it", () => {
    const seqs = [1, 2, 3, 4, 5, 9, 7, 8];
    const { problems } = play(false, [0, 1, 2, 3, 4, 5, 6, 7], (i) => seqs[i] as number);
    expect(problems[6]).toBe(
      "the notes binding's write returned sequence 7, not above 9 (a write it follows: its entity's previous write, or one before a cursor)",
    );
  });

  it("refuses an entity's update below its create, and a sequence two writes returned", () => {
    const below = play(false, [0, 1, 2, 3, 4, 5, 6, 7], (i) => [1, 2, 3, 2, 5, 6, 7, 8][i] as number);
    expect(below.problems[3]).toMatch(/returned sequence 2, not above 3 /);
    const twice = play(false, [0, 1], (i) => [5, 5][i] as number);
    expect(twice.problems[1]).toBe(
      "the notes binding's write returned sequence 5, which the write of event 1 (project.created) returned too",
    );
  });

  it("one at a time, says the previous write's sequence as before", () => {
    const { problems } = play(true, [0, 1], (i) => [4, 3][i] as number, ["project"]);
    expect(problems[1]).toBe("the notes binding's write returned sequence 3, not above the previous write's 4");
  });
});
