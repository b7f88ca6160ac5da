// The thread subscription as an Effect stream: the thread's catch-up (thread-catchup.ts) cut into
// chunks by the delivery strategy (thread-delivery.ts) and handed over one chunk per ACK, then the
// thread's live events through a bounded tail (live-budget.ts). The live subscription is taken
// BEFORE the catch-up is read, and only events after the catch-up's sequence pass, so an event
// appended during catch-up arrives exactly once.
import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import * as Stream from "effect/Stream";
import type { DeliveryStrategy } from "./delivery.js";
import { handOverChunks } from "./hand-over.js";
import { boundedLive, type LiveCounters, type LiveLimits, liveCounters, meterOf } from "./live-budget.js";
import { ThreadNotFoundError, type ThreadStreamItem } from "./rpcs.js";
import type { SubscribePayload } from "./subscription.js";
import { readThreadCatchUp, THREAD_FALLBACKS, type ThreadEventItem, type ThreadFallback } from "./thread-catchup.js";
import { planThreadChunks } from "./thread-delivery.js";
import type { ThreadStore } from "./thread-store.js";

/** One appended thread event as the live tail publishes it. */
export interface ThreadLiveEvent {
  threadId: string;
  sequence: number;
  item: ThreadEventItem;
}

/** How thread catch-ups went since the server started (server.getConfig reports them). */
export interface ThreadCounters extends LiveCounters {
  snapshots: number;
  replays: number;
  fallbacks: Record<ThreadFallback, number>;
}

export function threadCounters(): ThreadCounters {
  return {
    snapshots: 0,
    replays: 0,
    fallbacks: Object.fromEntries(THREAD_FALLBACKS.map((f) => [f, 0])) as Record<ThreadFallback, number>,
    ...liveCounters(),
  };
}

export interface ThreadDeps {
  threads: ThreadStore;
  live: PubSub.PubSub<ThreadLiveEvent>;
  strategy: DeliveryStrategy;
  liveLimits: LiveLimits;
  counters: ThreadCounters;
}

/** The shell's payload, for one thread: `afterSequence` is a cursor into that thread's events. */
export interface SubscribeThreadPayload extends SubscribePayload {
  readonly threadId: string;
}

export function subscribeThread(deps: ThreadDeps, payload: SubscribeThreadPayload) {
  return Stream.unwrapScoped(
    Effect.gen(function* () {
      const queue = yield* PubSub.subscribe(deps.live);
      const catchUp = readThreadCatchUp(deps.threads, payload.threadId, payload.afterSequence);
      if (!catchUp.ok) {
        return yield* Effect.fail(
          new ThreadNotFoundError({ threadId: payload.threadId, message: `no thread ${payload.threadId}` }),
        );
      }
      const first = catchUp.items[0];
      if (first?.kind === "snapshot") deps.counters.snapshots += 1;
      else deps.counters.replays += 1;
      if (catchUp.fallback !== null) deps.counters.fallbacks[catchUp.fallback] += 1;
      const marker: ThreadStreamItem | null =
        payload.requestCompletionMarker === true ? { kind: "synchronized" } : null;
      const pending = planThreadChunks<ThreadStreamItem>(catchUp.items, marker, deps.strategy);
      const after = catchUp.sequence;
      const live = yield* boundedLive(
        queue,
        (e) => e.threadId === payload.threadId && e.sequence > after,
        (e): ThreadStreamItem => e.item,
        deps.liveLimits,
        meterOf(deps.counters),
      );
      return Stream.concat(handOverChunks(pending), live.stream);
    }),
  );
}
