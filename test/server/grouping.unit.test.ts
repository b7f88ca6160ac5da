// Pure: the legacy replay's grouping (up to N items or a time window), driven by a source the test
// controls and by Effect's TestClock, so windows elapse only when the test moves the clock: the
// assertions are about which items go out together and when pulls happen, never about real time.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Queue from "effect/Queue";
import * as Stream from "effect/Stream";
import * as TestClock from "effect/TestClock";
import * as TestContext from "effect/TestContext";
import { describe, expect, it } from "vitest";
import { groupedWithin } from "../../server-under-test/grouping.js";

const window = { maxItems: 512, windowMs: 50 };
const run = <A, E>(program: Effect.Effect<A, E>) =>
  Effect.runPromise(program.pipe(Effect.provide(TestContext.TestContext)));
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** Lets other fibers run until `done()` holds; fails after many turns instead of hanging. */
const until = (what: string, done: () => boolean) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 10_000; turn++) {
      if (done()) return;
      yield* Effect.yieldNow();
    }
    return yield* Effect.die(new Error(`never happened: ${what}`));
  });

/** Lets other fibers run until some fiber sleeps on the TestClock (a window is running). */
const untilWindowRuns = Effect.gen(function* () {
  for (let turn = 0; turn < 10_000; turn++) {
    if (Chunk.size(yield* TestClock.sleeps()) > 0) return;
    yield* Effect.yieldNow();
  }
  return yield* Effect.die(new Error("never happened: a window started"));
});

describe("groupedWithin", () => {
  it("a group never exceeds the size; items keep their order, none lost or repeated", async () => {
    const sizes = [3, 700, 1, 500, 1200, 0, 511];
    let next = 0;
    const chunks = sizes.map((n) => {
      const items = range(next, n);
      next += n;
      return Chunk.unsafeFromArray(items);
    });
    const groups = await run(
      Stream.runCollect(Stream.chunks(groupedWithin(Stream.fromChunks(...chunks), window))).pipe(
        Effect.map((c) => Chunk.toReadonlyArray(c).map((g) => [...Chunk.toReadonlyArray(g)])),
      ),
    );
    expect(Math.max(...groups.map((g) => g.length))).toBe(512);
    // the clock never moves, so no window cuts a group: all full but the last
    expect(groups.map((g) => g.length)).toEqual([512, 512, 512, 512, 512, 355]);
    expect(groups.flat()).toEqual(range(0, next));
  });

  it("a window that elapses holding fewer items emits them; an empty window waits for the next", async () => {
    const groups = await run(
      Effect.gen(function* () {
        const live = yield* Queue.unbounded<number>();
        const seen: number[][] = [];
        yield* groupedWithin(Stream.fromQueue(live), window).pipe(
          Stream.chunks,
          Stream.runForEach((g) => Effect.sync(() => seen.push([...Chunk.toReadonlyArray(g)]))),
          Effect.fork,
        );
        yield* untilWindowRuns;
        yield* Queue.offerAll(live, [1, 2, 3]);
        yield* until("the items were taken", () => Option.getOrElse(live.unsafeSize(), () => -1) === 0);
        yield* untilWindowRuns;
        // three items collected, far fewer than 512: nothing goes out before the window ends
        yield* TestClock.adjust(window.windowMs - 1);
        yield* Effect.yieldNow();
        const beforeWindow = seen.length;
        yield* TestClock.adjust(1);
        yield* until("the first group", () => seen.length === 1);
        // a window with nothing in it emits nothing; the item arriving later goes out at the end of its window
        yield* untilWindowRuns;
        yield* TestClock.adjust(window.windowMs);
        yield* untilWindowRuns;
        const afterEmptyWindow = seen.length;
        yield* Queue.offer(live, 4);
        yield* until("the item was taken", () => Option.getOrElse(live.unsafeSize(), () => -1) === 0);
        yield* TestClock.adjust(window.windowMs);
        yield* until("the second group", () => seen.length === 2);
        return { beforeWindow, afterEmptyWindow, seen };
      }),
    );
    expect(groups).toEqual({ beforeWindow: 0, afterEmptyWindow: 1, seen: [[1, 2, 3], [4]] });
  });

  it("pulls the upstream only while the downstream waits for a group (no read-ahead)", async () => {
    const pulls = await run(
      Effect.scoped(
        Effect.gen(function* () {
          // pages of 500, like the replay's event log, counted as they are read
          let pages = 0;
          const upstream = Stream.repeatEffectChunkOption(
            Effect.suspend(() => {
              if (pages === 3) return Effect.fail(Option.none());
              pages += 1;
              return Effect.succeed(Chunk.unsafeFromArray(range((pages - 1) * 500, 500)));
            }),
          );
          const pull = yield* Stream.toPull(groupedWithin(upstream, window));
          const first = yield* pull;
          const afterFirst = pages;
          // the downstream is busy (as while a chunk waits for its ACK): give every fiber many turns
          for (let turn = 0; turn < 1_000; turn++) yield* Effect.yieldNow();
          const whileBusy = pages;
          const second = yield* pull;
          const afterSecond = pages;
          const third = yield* pull;
          return {
            sizes: [first, second, third].map(Chunk.size),
            afterFirst,
            whileBusy,
            afterSecond,
          };
        }),
      ),
    );
    // group 1 needs pages 1 and 2 (500 + 12); group 2 is page 2's other 488 plus 24 of page 3
    expect(pulls).toEqual({ sizes: [512, 512, 476], afterFirst: 2, whileBusy: 2, afterSecond: 3 });
  });
});
