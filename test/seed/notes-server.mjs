// TEST AID: a small server that is not ours to change, standing in for a user's server in the load
// phase's tests. A real Effect RPC server over WebSocket (the same @effect/rpc the bundled server
// uses) with its own store and its own API, unlike the fixture's: an append-only JSON-lines log in a
// state folder, a write RPC per change, and a watch stream. Plain JavaScript: it runs as is.
//
//   node notes-server.mjs init --state DIR           creates DIR's store, prints {"token": "..."}
//   node notes-server.mjs serve --state DIR --port P  serves ws://127.0.0.1:P/rpc (Bearer token)
//
// RPCs: Notes.Put {project} -> {seq} (a whole project: id, title, root, scripts [{id, name, command}]),
// Notes.Rename {id, title} -> {seq}, Notes.Watch {since?} streams {type:"state", seq, projects} (no
// `since`) or {type:"change", seq, project} per change after `since`, then {type:"ready", seq};
// Notes.Ping {} -> {ok: true}. Test switches: NOTES_FAIL_AT=N makes the Nth write fail (a broken
// server); NOTES_EXIT_AT=N makes the server exit with code 7 at the Nth write (a server dying mid-seed);
// NOTES_SHUFFLE=1 makes every fifth write wait 20 ms before it is applied and given its sequence, so writes
// in flight at once are stored out of the order they were sent (a server that commits concurrently);
// NOTES_IGNORE_TERM=1 makes it ignore SIGTERM (a server slow to stop); NOTES_PRIVATE_STORE=1 makes it
// refuse a store it reaches through a link that leads out of the folder above it (DIR is then a link
// inside a state folder, e.g. {state}/current), or one served before since its seed (every `serve`
// appends a line to DIR/starts): a trial that reached the template, or another's store, fails to start.
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import * as HttpMiddleware from "@effect/platform/HttpMiddleware";
import * as HttpRouter from "@effect/platform/HttpRouter";
import * as HttpServer from "@effect/platform/HttpServer";
import * as HttpServerRequest from "@effect/platform/HttpServerRequest";
import * as HttpServerResponse from "@effect/platform/HttpServerResponse";
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer";
import * as Rpc from "@effect/rpc/Rpc";
import * as RpcGroup from "@effect/rpc/RpcGroup";
import * as RpcSerialization from "@effect/rpc/RpcSerialization";
import * as RpcServer from "@effect/rpc/RpcServer";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Schema from "effect/Schema";
import * as Stream from "effect/Stream";

const [command, ...rest] = process.argv.slice(2);
const arg = (name) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const state = arg("state");
if (!state || !["init", "serve"].includes(command)) {
  process.stderr.write("usage: notes-server.mjs init|serve --state DIR [--port P]\n");
  process.exit(2);
}
const logFile = join(state, "notes.jsonl");
const tokenFile = join(state, "token");

if (command === "init") {
  mkdirSync(state, { recursive: true });
  if (existsSync(logFile)) {
    process.stderr.write(`notes-server: ${state} already holds a store\n`);
    process.exit(1);
  }
  const token = randomBytes(16).toString("hex");
  writeFileSync(tokenFile, token);
  writeFileSync(logFile, "");
  process.stdout.write(`${JSON.stringify({ token })}\n`);
  process.exit(0);
}

// serve: the log replayed into the projects, then every write appended before it is answered.
const startsFile = join(state, "starts");
const starts = existsSync(startsFile) ? readFileSync(startsFile, "utf8").split("\n").filter(Boolean).length : 0;
if (process.env.NOTES_PRIVATE_STORE === "1") {
  const store = realpathSync(state);
  const folder = realpathSync(dirname(state));
  const refuse = !store.startsWith(`${folder}/`)
    ? `${state} leads to ${store}, outside ${folder}`
    : starts > 1
      ? `${state} was served ${starts} times since its seed`
      : null;
  if (refuse) {
    process.stderr.write(`notes-server: not a private store: ${refuse}\n`);
    process.exit(1);
  }
}
appendFileSync(startsFile, `${process.pid}\n`);
const token = readFileSync(tokenFile, "utf8").trim();
const projects = new Map();
let seq = 0;
const apply = (change) => {
  seq = change.seq;
  if (change.op === "put") projects.set(change.project.id, change.project);
  else projects.set(change.id, { ...projects.get(change.id), title: change.title });
};
const changes = readFileSync(logFile, "utf8").split("\n").filter(Boolean).map(JSON.parse);
for (const c of changes) apply(c);
const failAt = Number(process.env.NOTES_FAIL_AT ?? 0);
const exitAt = Number(process.env.NOTES_EXIT_AT ?? 0);
const shuffle = process.env.NOTES_SHUFFLE === "1";
let writes = 0;
let arrivals = 0;
const write = (change) => {
  const applied = applyWrite(change);
  return shuffle ? Effect.zipRight(Effect.sleep(++arrivals % 5 === 4 ? 20 : 0), applied) : applied;
};
const applyWrite = (change) =>
  Effect.suspend(() => {
    if (change.op === "rename" && !projects.has(change.id)) return Effect.fail(`no project ${change.id}`);
    if (++writes === failAt) return Effect.fail(`write ${writes} refused (NOTES_FAIL_AT)`);
    if (writes === exitAt) {
      process.stderr.write(`notes-server: exiting at write ${writes} (NOTES_EXIT_AT)\n`);
      process.exit(7);
    }
    const entry = { ...change, seq: seq + 1 };
    appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
    changes.push(entry);
    apply(entry);
    return Effect.succeed({ seq });
  });

const Script = Schema.Struct({ id: Schema.String, name: Schema.String, command: Schema.String });
const Project = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  root: Schema.String,
  scripts: Schema.Array(Script),
});
const Seq = Schema.Struct({ seq: Schema.Number });
class NotesRpcs extends RpcGroup.make(
  Rpc.make("Notes.Put", { payload: { project: Project }, success: Seq, error: Schema.String }),
  Rpc.make("Notes.Rename", {
    payload: { id: Schema.String, title: Schema.String },
    success: Seq,
    error: Schema.String,
  }),
  Rpc.make("Notes.Watch", {
    payload: { since: Schema.optional(Schema.Number) },
    success: Schema.Unknown,
    stream: true,
  }),
  Rpc.make("Notes.Ping", { success: Schema.Struct({ ok: Schema.Boolean }) }),
) {}

const handlers = NotesRpcs.toLayer({
  "Notes.Put": ({ project }) => write({ op: "put", project }),
  "Notes.Rename": ({ id, title }) => write({ op: "rename", id, title }),
  "Notes.Watch": ({ since }) => {
    const items =
      since === undefined
        ? [{ type: "state", seq, projects: [...projects.values()] }]
        : changes
            .filter((c) => c.seq > since)
            .map((c) => ({ type: "change", seq: c.seq, project: projects.get(c.project?.id ?? c.id) }));
    return Stream.concat(Stream.fromIterable([...items, { type: "ready", seq }]), Stream.never);
  },
  "Notes.Ping": () => Effect.succeed({ ok: true }),
});

const auth = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest;
    if (request.headers.authorization !== `Bearer ${token}`)
      return HttpServerResponse.text("unauthorized\n", { status: 401 });
    return yield* app;
  }),
);

const Http = HttpRouter.Default.serve(auth).pipe(
  Layer.provide(
    RpcServer.layer(NotesRpcs).pipe(
      Layer.provide(handlers),
      Layer.provide(RpcServer.layerProtocolWebsocket({ path: "/rpc" })),
      Layer.provide(RpcSerialization.layerJson),
    ),
  ),
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: Number(arg("port") ?? 0), host: "127.0.0.1" })),
);
// Said once the routes are attached, not when the port is bound.
const Ready = Layer.effectDiscard(
  Effect.gen(function* () {
    const { address } = yield* HttpServer.HttpServer;
    const where = address._tag === "TcpAddress" ? address.port : 0;
    process.stderr.write(`notes-server: ${projects.size} projects at seq ${seq}, listening on port ${where}\n`);
  }),
);
for (const signal of ["SIGINT", "SIGTERM"]) {
  const ignored = signal === "SIGTERM" && process.env.NOTES_IGNORE_TERM === "1";
  process.on(signal, () => (ignored ? process.stderr.write("notes-server: SIGTERM ignored\n") : process.exit(0)));
}
Effect.runFork(Layer.launch(Ready.pipe(Layer.provide(Http))));
