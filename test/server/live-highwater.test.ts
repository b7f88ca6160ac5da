// The live tail's high-water filter, in process over a real fixture store: an event appended before
// the catch-up read but published to the live feed after the subscriber joined (the interleaving a
// busy server can produce between a command's append and its publish) is delivered once, not twice.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import * as Stream from "effect/Stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openFixture, readFixtureMetaFrom } from "../../fixtures/meta.js";
import { LIVE_LIMITS, liveCounters } from "../../server-under-test/live-budget.js";
import type { ShellItem } from "../../server-under-test/rpcs.js";
import { EventStore } from "../../server-under-test/store.js";
import { type LiveEvent, subscribeShell } from "../../server-under-test/subscription.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let store: EventStore;

beforeAll(() => {
  fixtures = tempFixtures();
  const path = fixtures.make("highwater", { projects: 5, scriptBytes: 64, events: 5 });
  const db = openFixture(path);
  store = new EventStore(db, readFixtureMetaFrom(db, path));
});

afterAll(() => {
  store?.close();
  fixtures?.cleanup();
});

it("an append published late is in the catch-up only; later events arrive live once", async () => {
  const projectId = (store.snapshot()[0] as { id: string }).id;
  const program = Effect.gen(function* () {
    const live = yield* PubSub.unbounded<LiveEvent>();
    const deps = {
      store,
      live,
      limits: { maxReplayEvents: 1000, maxReplayBytes: 1 << 23 },
      strategy: "batched" as const,
      itemShape: "lean" as const,
      maxInitialChunkBytes: undefined,
      liveLimits: LIVE_LIMITS,
      counters: liveCounters(),
    };
    const late = store.updateProject(projectId, "appended, not yet published", new Date(0));
    if (!late) throw new Error("update failed");
    const pull = yield* Stream.toPull(
      subscribeShell(deps, { afterSequence: late.sequence - 1, requestCompletionMarker: true }),
    );
    const catchUp = Chunk.toReadonlyArray(yield* pull);
    yield* PubSub.publish(live, late); // the late publish of an event the catch-up already holds
    const next = store.updateProject(projectId, "after", new Date(0));
    if (!next) throw new Error("update failed");
    yield* PubSub.publish(live, next);
    const after: ShellItem[] = [];
    while (after.length === 0) after.push(...Chunk.toReadonlyArray(yield* pull));
    return { catchUp, after, late: late.sequence, next: next.sequence };
  }).pipe(Effect.scoped, Effect.timeout("10 seconds"));
  const { catchUp, after, late, next } = await Effect.runPromise(program);
  expect(catchUp.map((i) => i.kind)).toEqual(["resume", "project.updated", "synchronized"]);
  expect(catchUp[1]).toMatchObject({ sequence: late });
  expect(after.map((i) => (i.kind === "project.updated" ? i.sequence : i.kind))).toEqual([next]);
});
