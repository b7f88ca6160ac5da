// The RPC handlers: thin glue from the contract (rpcs.ts) to the store, the live tail and delivery.
import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import { MAX_FRAME_BYTES } from "./frame-limit.js";
import { LIVE_LIMITS, liveCounters } from "./live-budget.js";
import { ProjectNotFoundError, ServerRpcs, ThreadNotFoundError } from "./rpcs.js";
import type { ServerSettings } from "./settings.js";
import type { EventStore } from "./store.js";
import { type LiveEvent, subscribeShell } from "./subscription.js";
import { eventItem } from "./thread-catchup.js";
import { MESSAGE_UPDATED } from "./thread-store.js";
import { subscribeThread, type ThreadLiveEvent, threadCounters } from "./thread-subscription.js";

export const SERVER_NAME = "catchup-bench-server";
export const SERVER_VERSION = "0.1.0";

export function handlersLayer(settings: ServerSettings, store: EventStore, live: PubSub.PubSub<LiveEvent>) {
  const deps = {
    store,
    live,
    limits: { maxReplayEvents: settings.maxReplayEvents, maxReplayBytes: settings.maxReplayBytes },
    strategy: settings.delivery,
    itemShape: settings.itemShape,
    maxInitialChunkBytes: settings.maxInitialChunkBytes,
    maxProjectedBytes: settings.maxProjectedBytes,
    replayGroup: { maxItems: settings.replayGroupItems, windowMs: settings.replayGroupWindowMs },
    liveLimits: LIVE_LIMITS,
    counters: liveCounters(),
  };
  const threadLive = Effect.runSync(PubSub.unbounded<ThreadLiveEvent>());
  const threadDeps = {
    threads: store.threads,
    live: threadLive,
    strategy: settings.delivery,
    liveLimits: LIVE_LIMITS,
    counters: threadCounters(),
  };
  return ServerRpcs.toLayer({
    "orchestration.subscribeShell": (payload) => subscribeShell(deps, payload),
    "orchestration.subscribeThread": (payload) => subscribeThread(threadDeps, payload),
    "server.getConfig": () =>
      Effect.sync(() => ({
        name: SERVER_NAME,
        version: SERVER_VERSION,
        delivery: settings.delivery,
        limits: {
          maxReplayEvents: settings.maxReplayEvents,
          maxReplayBytes: settings.maxReplayBytes,
          maxInitialChunkBytes: settings.maxInitialChunkBytes ?? null,
          maxProjectedBytes: settings.maxProjectedBytes ?? null,
          maxFrameBytes: MAX_FRAME_BYTES,
        },
        itemShape: settings.itemShape,
        stats: { replayPagesRead: store.replayPagesRead, shell: deps.counters, threads: threadDeps.counters },
        fixture: store.meta,
        latestSequence: store.latestSequence,
      })),
    "orchestration.dispatchCommand": (command) =>
      Effect.gen(function* () {
        if (command.type === "thread.message.append") {
          const now = new Date();
          const stored = store.threads.append(
            command.threadId,
            MESSAGE_UPDATED,
            {
              id: `message-appended-${store.latestSequence + 1}`,
              threadId: command.threadId,
              role: command.role,
              text: command.text,
              streaming: false,
              createdAt: now.toISOString(),
              updatedAt: now.toISOString(),
            },
            now,
          );
          if (stored === undefined) {
            return yield* Effect.fail(
              new ThreadNotFoundError({ threadId: command.threadId, message: `no thread ${command.threadId}` }),
            );
          }
          yield* PubSub.publish(threadLive, {
            threadId: stored.threadId,
            sequence: stored.sequence,
            item: eventItem(stored),
          });
          return { sequence: stored.sequence };
        }
        const appended = store.updateProject(command.projectId, command.title, new Date());
        if (appended === undefined) {
          return yield* Effect.fail(
            new ProjectNotFoundError({ projectId: command.projectId, message: `no project ${command.projectId}` }),
          );
        }
        yield* PubSub.publish(live, appended);
        return { sequence: appended.sequence };
      }),
  });
}
