// The shell subscription as an Effect stream: catch-up chunks (cut by delivery.ts), then live items.
// Live events are subscribed to BEFORE the catch-up is read, and only events after the catch-up's
// high-water sequence pass, so an event appended during catch-up arrives exactly once.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as ExecutionStrategy from "effect/ExecutionStrategy";
import * as Exit from "effect/Exit";
import * as Option from "effect/Option";
import * as PubSub from "effect/PubSub";
import * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import { type ItemShape, type ReplayLimits, readCatchUp } from "./catchup.js";
import { type DeliveryStrategy, type PlannedChunk, planChunks } from "./delivery.js";
import { type GroupWindow, REFERENCE_GROUP_WINDOW } from "./grouping.js";
import { streamReplay } from "./replay-stream.js";
import { CursorAheadError, type ProjectShell, type ShellItem } from "./rpcs.js";
import type { EventStore } from "./store.js";

/** One appended event as the live tail publishes it. */
export interface LiveEvent {
  sequence: number;
  project: ProjectShell;
}

export interface SubscriptionDeps {
  store: EventStore;
  live: PubSub.PubSub<LiveEvent>;
  limits: ReplayLimits;
  strategy: DeliveryStrategy;
  itemShape: ItemShape;
  maxInitialChunkBytes: number | undefined;
  maxProjectedBytes?: number | undefined;
  /** How a streamed (legacy) replay is grouped into chunks (default: as the reference server). */
  replayGroup?: GroupWindow | undefined;
}

export interface SubscribePayload {
  readonly afterSequence?: number | undefined;
  readonly requestCompletionMarker?: boolean | undefined;
}

export function subscribeShell(deps: SubscriptionDeps, payload: SubscribePayload) {
  return Stream.unwrapScoped(
    Effect.gen(function* () {
      const queue = yield* PubSub.subscribe(deps.live);
      const initial = initialChunks(deps, payload);
      if (!initial.ok) return yield* Effect.fail(initial.error);
      const highWater = initial.highWater;
      const live = Stream.fromQueue(queue).pipe(
        Stream.filter((e) => e.sequence > highWater),
        Stream.map((e): ShellItem => ({ kind: "project.updated", sequence: e.sequence, project: e.project })),
      );
      return Stream.concat(handOverOnce(initial.pending, deps.replayGroup ?? REFERENCE_GROUP_WINDOW), live);
    }),
  );
}

/** Reads and cuts the catch-up; nothing but the returned chunk list keeps a reference to it. */
function initialChunks(
  deps: SubscriptionDeps,
  payload: SubscribePayload,
): { ok: true; pending: PlannedChunk[]; highWater: number } | { ok: false; error: CursorAheadError } {
  const result = readCatchUp(deps.store, payload.afterSequence, deps.limits, deps.itemShape);
  if (!result.ok) {
    return {
      ok: false,
      error: new CursorAheadError({
        afterSequence: result.afterSequence,
        latestSequence: result.latestSequence,
        message: `afterSequence ${result.afterSequence} is beyond the latest sequence ${result.latestSequence}`,
      }),
    };
  }
  const pending = planChunks(result.catchUp, {
    strategy: deps.strategy,
    requestCompletionMarker: payload.requestCompletionMarker === true,
    maxInitialChunkBytes: deps.maxInitialChunkBytes,
    maxProjectedBytes: deps.maxProjectedBytes,
  });
  return { ok: true, pending, highWater: result.catchUp.sequence };
}

/**
 * Emits each pending chunk once, removing it from the list as it goes, so a delivered snapshot is
 * garbage once written, even while the subscription (and this stream) stays open. A streamed replay
 * is pulled group by group (each group one chunk) before the next pending piece.
 * Then one empty chunk: Effect's channel executor keeps a reference to the last element it emitted
 * until the next one, which would pin the final catch-up chunk (in batched delivery, the whole
 * snapshot) for as long as no live event comes. The RPC server writes no frame for an empty chunk.
 */
function handOverOnce(pending: PlannedChunk[], replayGroup: GroupWindow): Stream.Stream<ShellItem> {
  return Stream.unwrapScoped(
    Effect.gen(function* () {
      const scope = yield* Effect.scope;
      // the replay being streamed: its next group, and its own scope, closed when it ends so that
      // nothing of the replay (its last group included) outlives it
      let replay:
        | { pull: Effect.Effect<Chunk.Chunk<ShellItem>, Option.Option<never>>; scope: Scope.CloseableScope }
        | undefined;
      let flushed = false;
      const step: Effect.Effect<Chunk.Chunk<ShellItem>, Option.Option<never>> = Effect.suspend(() => {
        if (replay !== undefined) {
          const current = replay;
          // when the replay ends, go on with the next pending piece
          return Effect.catchAll(current.pull, () => {
            replay = undefined;
            return Scope.close(current.scope, Exit.void).pipe(Effect.zipRight(step));
          });
        }
        const next = pending.shift();
        if (next === undefined) {
          if (flushed) return Effect.fail(Option.none());
          flushed = true;
          return Effect.succeed(Chunk.empty<ShellItem>());
        }
        if (Array.isArray(next)) return Effect.succeed(Chunk.unsafeFromArray(next));
        return Effect.gen(function* () {
          const replayScope = yield* Scope.fork(scope, ExecutionStrategy.sequential);
          const pull = yield* Stream.toPull(streamReplay(next.replay, replayGroup)).pipe(Scope.extend(replayScope));
          replay = { pull, scope: replayScope };
          return yield* step;
        });
      });
      return Stream.repeatEffectChunkOption(step);
    }),
  );
}
