// Authentication happens once, on the WebSocket upgrade (401 and no upgrade without a known token);
// authorization happens per call, against the scopes of the token the connection used.
// The upgrade's headers reach every RPC of that connection (the rpc socket protocol prepends them
// to each request's headers), so the HTTP middleware registers the connection's scopes under a
// fresh unguessable session id and adds that id as a header; the RPC middleware looks it up.
import { randomUUID } from "node:crypto";
import * as Headers from "@effect/platform/Headers";
import * as HttpMiddleware from "@effect/platform/HttpMiddleware";
import * as HttpServerRequest from "@effect/platform/HttpServerRequest";
import * as HttpServerResponse from "@effect/platform/HttpServerResponse";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Authorization, AuthorizationError, REQUIRED_SCOPE, SCOPES, type Scope } from "./rpcs.js";

/** The documented dev token, accepted (with both scopes) only when no --token is given. */
export const DEV_TOKEN = "catchup-dev-token";
export const SESSION_HEADER = "x-catchup-session";

export interface TokenGrant {
  token: string;
  scopes: Scope[];
}

/** Parses `SECRET[:scope,scope]`; no scope list means both scopes. Throws a message naming the flag. */
export function parseToken(spec: string): TokenGrant {
  const colon = spec.indexOf(":");
  const token = colon < 0 ? spec : spec.slice(0, colon);
  if (token === "") throw new Error(`--token must be SECRET[:scope,scope] with a non-empty SECRET (got "${spec}")`);
  if (colon < 0) return { token, scopes: [...SCOPES] };
  const scopes = spec
    .slice(colon + 1)
    .split(",")
    .map((s) => s.trim());
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) {
      throw new Error(`--token scope must be one of ${SCOPES.join(", ")} (got "${s}" in "${spec}")`);
    }
  }
  return { token, scopes: [...new Set(scopes)] as Scope[] };
}

/** The token table: the given grants, or the dev token with both scopes when none are given. */
export function tokenTable(grants: TokenGrant[]): Map<string, Scope[]> {
  const all = grants.length > 0 ? grants : [{ token: DEV_TOKEN, scopes: [...SCOPES] }];
  return new Map(all.map((g) => [g.token, g.scopes]));
}

/** The token presented on an upgrade: `Authorization: Bearer T`, else `?token=T`. */
export function presentedToken(authorization: string | undefined, url: URL): string | undefined {
  const m = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1] ?? url.searchParams.get("token") ?? undefined;
}

/** Live connections' scopes, by session id; an entry lives exactly as long as its socket. */
export type Sessions = Map<string, Scope[]>;

/** HTTP middleware: 401 for /ws without a known token; otherwise tag the request with a session id. */
export function upgradeAuth(tokens: Map<string, Scope[]>, sessions: Sessions, wsPath: string) {
  return HttpMiddleware.make((app) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest;
      const url = new URL(request.url, "http://127.0.0.1");
      if (url.pathname !== wsPath) return yield* app;
      const token = presentedToken(request.headers.authorization, url);
      const scopes = token === undefined ? undefined : tokens.get(token);
      if (scopes === undefined) {
        return HttpServerResponse.text(token === undefined ? "missing token\n" : "unknown token\n", {
          status: 401,
          headers: { "www-authenticate": 'Bearer realm="catchup-bench"' },
        });
      }
      const session = randomUUID();
      sessions.set(session, scopes);
      const tagged = request.modify({ headers: Headers.set(request.headers, SESSION_HEADER, session) });
      return yield* app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, tagged),
        Effect.ensuring(Effect.sync(() => sessions.delete(session))),
      );
    }),
  );
}

/** RPC middleware: fails the call (not the connection) when its scope is missing. */
export function authorizationLayer(sessions: Sessions) {
  return Layer.succeed(Authorization, ({ rpc, headers }) => {
    const required = REQUIRED_SCOPE[rpc._tag] ?? "orchestration:operate";
    const session = headers[SESSION_HEADER];
    const scopes = session === undefined ? undefined : sessions.get(session);
    if (scopes?.includes(required)) return Effect.void;
    return Effect.fail(
      new AuthorizationError({ requiredScope: required, message: `${rpc._tag} requires scope ${required}` }),
    );
  });
}
