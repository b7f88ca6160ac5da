// Groups a stream into chunks of up to N items or what arrived within a time window, as the reference
// server streams its legacy replay (Effect 4's `Stream.groupedWithin`, i.e. `Sink.take(n)` raced
// against `Schedule.spaced(window)`). Each emitted chunk becomes one Chunk frame.
//
// Semantics kept from the reference:
// - A group is collected only while the downstream waits for it: the window starts when the
//   downstream pulls, and the upstream is pulled only then (no read-ahead). Over an ACK-gated RPC
//   stream, the next upstream page is therefore read only after the previous group's ACK.
// - A group is emitted when it holds N items (the rest of that upstream chunk is kept, in order,
//   for the next group), when the upstream ends, or when a window elapses holding at least one item.
//   A window that elapses with nothing collected starts another one from where it ended.
// - An upstream pull still running when a window cuts the group is not lost or repeated: its chunk
//   starts the next group.
// The clock is Effect's Clock, so a test can drive the windows with TestClock.
import * as Cause from "effect/Cause";
import * as Chunk from "effect/Chunk";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";

export interface GroupWindow {
  /** A group holds at most this many items. */
  maxItems: number;
  /** A group is emitted once this many ms have passed since the downstream asked for it, if it holds an item. */
  windowMs: number;
}

/** The reference server's legacy replay grouping: up to 512 items or 50 ms. */
export const REFERENCE_GROUP_WINDOW: GroupWindow = { maxItems: 512, windowMs: 50 };

export function groupedWithin<A, E, R>(upstream: Stream.Stream<A, E, R>, window: GroupWindow): Stream.Stream<A, E, R> {
  const { maxItems, windowMs } = window;
  return Stream.unwrapScoped(
    Effect.gen(function* () {
      const scope = yield* Effect.scope;
      const pull = yield* Stream.toPull(upstream);
      let leftover: A[] = [];
      let inFlight: Fiber.RuntimeFiber<Chunk.Chunk<A>, Option.Option<E>> | undefined;
      let ended = false;

      const nextGroup = Effect.gen(function* () {
        const group = leftover.slice(0, maxItems);
        leftover = leftover.slice(group.length);
        let windowEnd = (yield* Clock.currentTimeMillis) + windowMs;
        while (group.length < maxItems && !ended) {
          const now = yield* Clock.currentTimeMillis;
          if (inFlight === undefined) {
            if (now >= windowEnd && group.length > 0) break;
            inFlight = yield* Effect.forkIn(pull, scope);
          }
          const pulling = inFlight;
          const outcome = yield* Effect.raceFirst(
            Fiber.await(pulling),
            Effect.sleep(Math.max(0, windowEnd - now)).pipe(Effect.as("window" as const)),
          );
          if (outcome === "window") {
            if (group.length > 0) break;
            while (windowEnd <= (yield* Clock.currentTimeMillis)) windowEnd += windowMs;
            continue;
          }
          inFlight = undefined;
          if (Exit.isFailure(outcome)) {
            // the upstream ends by failing with Option.none: emit what was collected, then end
            const failure = Cause.failureOption(outcome.cause);
            if (Option.isSome(failure) && Option.isNone(failure.value)) {
              ended = true;
              break;
            }
            return yield* Effect.failCause(outcome.cause);
          }
          const items = Chunk.toReadonlyArray(outcome.value);
          const room = maxItems - group.length;
          for (const item of items.slice(0, room)) group.push(item);
          // the loop runs only once the leftover is used up, so this is the whole leftover
          leftover = items.slice(room);
        }
        if (group.length === 0) return yield* Effect.fail(Option.none());
        return Chunk.unsafeFromArray(group);
      });
      return Stream.repeatEffectChunkOption(nextGroup);
    }),
  );
}
