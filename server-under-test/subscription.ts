// The shell subscription as an Effect stream: catch-up chunks (cut by delivery.ts), then live items
// through a bounded tail (live-budget.ts), as the thread subscription's. Live events are subscribed
// to BEFORE the catch-up is read, and only events after the catch-up's high-water sequence pass, so
// an event appended during catch-up arrives exactly once.
import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import * as Stream from "effect/Stream";
import { type ItemShape, type ReplayLimits, readCatchUp } from "./catchup.js";
import { type DeliveryStrategy, type PlannedChunk, planChunks } from "./delivery.js";
import { type GroupWindow, REFERENCE_GROUP_WINDOW } from "./grouping.js";
import { handOverChunks } from "./hand-over.js";
import { boundedLive, type LiveCounters, type LiveLimits, meterOf } from "./live-budget.js";
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
  /** The live tail's retention budget per subscription, and the counters it keeps. */
  liveLimits: LiveLimits;
  counters: LiveCounters;
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
      const live = yield* boundedLive(
        queue,
        (e) => e.sequence > highWater,
        (e): ShellItem => ({ kind: "project.updated", sequence: e.sequence, project: e.project }),
        deps.liveLimits,
        meterOf(deps.counters),
      );
      const group = deps.replayGroup ?? REFERENCE_GROUP_WINDOW;
      // a streamed replay is pulled group by group (each group one chunk) before the next piece
      const handOver = handOverChunks(initial.pending, (piece) => streamReplay(piece.replay, group));
      return Stream.concat(handOver, live.stream);
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
