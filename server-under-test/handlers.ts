// The RPC handlers: thin glue from the contract (rpcs.ts) to the store, the live tail and delivery.
import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import { MAX_FRAME_BYTES } from "./frame-limit.js";
import { ProjectNotFoundError, ServerRpcs } from "./rpcs.js";
import type { ServerSettings } from "./settings.js";
import type { EventStore } from "./store.js";
import { type LiveEvent, subscribeShell } from "./subscription.js";

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
  };
  return ServerRpcs.toLayer({
    "orchestration.subscribeShell": (payload) => subscribeShell(deps, payload),
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
        stats: { replayPagesRead: store.replayPagesRead },
        fixture: store.meta,
        latestSequence: store.latestSequence,
      })),
    "orchestration.dispatchCommand": (command) =>
      Effect.gen(function* () {
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
