// Interoperability: the stock @effect/rpc RpcClient (a client we did not write) subscribes through
// the completion marker and calls server.getConfig, over the real socket.
import * as NodeSocket from "@effect/platform-node/NodeSocket";
import * as RpcClient from "@effect/rpc/RpcClient";
import * as RpcSerialization from "@effect/rpc/RpcSerialization";
import * as Cause from "effect/Cause";
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AuthorizationError, ServerRpcs } from "../../server-under-test/rpcs.js";
import { type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let server: RunningServer;
const fixture = { projects: 40, scriptBytes: 512, events: 60 };
const latest = fixture.projects + fixture.events;

beforeAll(async () => {
  fixtures = tempFixtures();
  server = await startServer(fixtures.make("stock", fixture), ["--token", "reader:orchestration:read"]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  fixtures?.cleanup();
});

const clientLayer = (token: string) =>
  RpcClient.layerProtocolSocket().pipe(
    Layer.provide(NodeSocket.layerWebSocket(`${server.url}?token=${token}`)),
    Layer.provide(RpcSerialization.layerJson),
  );

it.each([
  ["snapshot", {}],
  ["resume", { afterSequence: fixture.projects }],
])("subscribes (%s) through `synchronized`, then calls server.getConfig", async (_name, payload) => {
  const program = Effect.gen(function* () {
    const client = yield* RpcClient.make(ServerRpcs);
    const items = yield* client.orchestration.subscribeShell({ ...payload, requestCompletionMarker: true }).pipe(
      Stream.takeUntil((item) => item.kind === "synchronized"),
      Stream.runCollect,
    );
    const config = yield* client.server.getConfig();
    return { items: Chunk.toReadonlyArray(items), config };
  }).pipe(Effect.scoped, Effect.provide(clientLayer("reader")), Effect.timeout("20 seconds"));
  const { items, config } = await Effect.runPromise(program);
  expect(items.at(-1)).toEqual({ kind: "synchronized", sequence: latest });
  // The reference shape (the default): a cold snapshot is the authoritative item, then the
  // enrichment item; a resume opens with the metadata snapshot (the enrichment item alone).
  const enrichment = (i: (typeof items)[number] | undefined) =>
    i?.kind === "snapshot" && "resolvedRepositoryIdentityRoots" in i && i.resolvedRepositoryIdentityRoots !== undefined;
  if ("afterSequence" in payload) {
    expect(enrichment(items[0])).toBe(true);
    expect(items.slice(1, -1).every((i) => i.kind === "project.updated")).toBe(true);
  } else {
    expect(items.map((i) => i.kind)).toEqual(["snapshot", "snapshot", "synchronized"]);
    expect([enrichment(items[0]), enrichment(items[1])]).toEqual([false, true]);
  }
  expect(config).toMatchObject({
    name: "catchup-bench-server",
    delivery: "legacy",
    fixture: { latestSequence: latest },
  });
});

it("decodes a missing scope as the tagged AuthorizationError", async () => {
  const program = Effect.gen(function* () {
    const client = yield* RpcClient.make(ServerRpcs);
    return yield* Effect.exit(
      client.orchestration.dispatchCommand({ type: "project.update", projectId: "p", title: "t" }),
    );
  }).pipe(Effect.scoped, Effect.provide(clientLayer("reader")), Effect.timeout("20 seconds"));
  const exit = await Effect.runPromise(program);
  expect(Exit.isFailure(exit)).toBe(true);
  const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none();
  expect(Option.getOrUndefined(failure)).toBeInstanceOf(AuthorizationError);
  expect(Option.getOrUndefined(failure)).toMatchObject({ requiredScope: "orchestration:operate" });
});
