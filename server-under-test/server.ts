// Wires the server: Effect RPC over WebSocket at /ws (JSON, one message per text frame) behind the
// upgrade-auth middleware, on a Node HTTP server. Module paths are imported (not package roots) to
// keep the idle heap small: this process's memory is what the bench measures.
import { createServer } from "node:http";
import * as HttpRouter from "@effect/platform/HttpRouter";
import * as HttpServer from "@effect/platform/HttpServer";
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer";
import * as RpcServer from "@effect/rpc/RpcServer";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as PubSub from "effect/PubSub";
import { authorizationLayer, type Sessions, tokenTable, upgradeAuth } from "./auth.js";
import { closeAllSockets, installFrameLimit } from "./frame-limit.js";
import { handlersLayer } from "./handlers.js";
import { ServerRpcs } from "./rpcs.js";
import { layerCheckedJson } from "./serialization.js";
import type { ServerSettings } from "./settings.js";
import type { EventStore } from "./store.js";
import type { LiveEvent } from "./subscription.js";
import { boundRequestHeaders } from "./upgrade-timeout.js";

export const WS_PATH = "/ws";
/** How long shutdown waits for clients to answer the close frame before cutting sockets. */
const CLOSE_GRACE_MS = 3000;

/**
 * A node http server that closes connections whose request headers (the WebSocket upgrade) are not
 * complete within `timeoutMs`, instead of Node's 60 s default, counting only time the server was
 * responsive (see upgrade-timeout.ts). An upgraded socket is done with its headers, so the bound never
 * cuts an established WebSocket.
 */
export function boundedUpgradeServer(timeoutMs: number) {
  // Node's own timers are off: they count this server's event-loop stalls against the client.
  const server = createServer({ headersTimeout: 0, requestTimeout: 0 });
  boundRequestHeaders(server, timeoutMs);
  return server;
}

/** Logs go to stderr: stdout carries only the ready line. */
export const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger));

/** The whole server as a layer; `onListening` gets the ws URL once the socket is bound and routed. */
export function serverLayer(settings: ServerSettings, store: EventStore, onListening: (url: string) => void) {
  installFrameLimit();
  const sessions: Sessions = new Map();
  const live = Effect.runSync(PubSub.unbounded<LiveEvent>());
  const Rpc = RpcServer.layer(ServerRpcs).pipe(
    Layer.provide(handlersLayer(settings, store, live)),
    Layer.provide(authorizationLayer(sessions)),
    Layer.provide(RpcServer.layerProtocolWebsocket({ path: WS_PATH })),
    Layer.provide(layerCheckedJson),
  );
  const Http = HttpRouter.Default.serve(upgradeAuth(tokenTable(settings.tokens), sessions, WS_PATH)).pipe(
    Layer.provide(Rpc),
    Layer.provideMerge(
      NodeHttpServer.layer(() => boundedUpgradeServer(settings.upgradeTimeoutMs), {
        port: settings.port,
        host: settings.host,
        backlog: settings.backlog,
      }),
    ),
  );
  const Ready = Layer.scopedDiscard(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer;
      // Runs first on shutdown: say goodbye to clients so the HTTP server can close.
      yield* Effect.addFinalizer(() => Effect.promise(() => closeAllSockets(CLOSE_GRACE_MS)));
      const address = server.address;
      const host =
        address._tag === "TcpAddress"
          ? address.hostname.includes(":")
            ? `[${address.hostname}]`
            : address.hostname
          : "localhost";
      const port = address._tag === "TcpAddress" ? address.port : 0;
      onListening(`ws://${host}:${port}${WS_PATH}`);
    }),
  );
  return Ready.pipe(Layer.provide(Http), Layer.provide(StderrLogger));
}
