// Hostile or broken input gets protocol answers (or, for oversized frames, a closed socket) and
// never crashes the server or disturbs other connections.
import { afterAll, beforeAll, expect, it } from "vitest";
import { isChunkFor, isExitFor, RawConnection, subscribeThroughCompletion } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let server: RunningServer;
let bystander: RawConnection;

beforeAll(async () => {
  fixtures = tempFixtures();
  server = await startServer(fixtures.make("input", { projects: 20, scriptBytes: 128, events: 20 }));
  // A well-behaved client with a live subscription, checked after every hostile test.
  bystander = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  await subscribeThroughCompletion(bystander, "1", { afterSequence: 40 });
}, 60_000);

afterAll(async () => {
  await bystander?.close();
  await server?.stop();
  fixtures?.cleanup();
});

let probe = 100;
async function bystanderStillServed(): Promise<void> {
  const id = String(probe++);
  bystander.request(id, "server.getConfig", null);
  expect((await bystander.next(isExitFor(id))).exit).toMatchObject({ _tag: "Success" });
  expect(server.child.exitCode).toBeNull();
}

it("a frame over 1 MiB closes that socket with 1009; others are unaffected", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.send(JSON.stringify({ _tag: "Ping", pad: "x".repeat(1024 * 1024) }));
  expect((await conn.closed).code).toBe(1009);
  await bystanderStillServed();
});

it("a frame just under 1 MiB is accepted", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  const base = JSON.stringify({ _tag: "Ping", pad: "" });
  conn.send(JSON.stringify({ _tag: "Ping", pad: "x".repeat(1024 * 1024 - base.length) }));
  await conn.next((f) => f._tag === "Pong");
  await conn.close();
});

it("malformed JSON gets a Defect and the socket stays usable", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.send("{not json");
  await conn.next((f) => f._tag === "Defect");
  conn.send({ _tag: "Ping" });
  await conn.next((f) => f._tag === "Pong");
  await conn.close();
  await bystanderStillServed();
});

it("an unknown message tag and an unknown rpc tag get Defects", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.send({ _tag: "Bogus" });
  expect(await conn.next((f) => f._tag === "Defect")).toMatchObject({ defect: expect.stringContaining("Bogus") });
  conn.request("1", "no.such.rpc", {});
  expect(await conn.next((f) => f._tag === "Defect" && String(f.defect).includes("no.such.rpc"))).toBeTruthy();
  conn.send({ _tag: "Ping" });
  await conn.next((f) => f._tag === "Pong");
  await conn.close();
  await bystanderStillServed();
});

it("an invalid payload gets a failed Exit naming the schema problem", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.request("1", "orchestration.subscribeShell", { afterSequence: -1 });
  const exit = await conn.next(isExitFor("1"));
  expect(exit.exit).toMatchObject({ _tag: "Failure", cause: { _tag: "Die" } });
  expect(JSON.stringify(exit.exit)).toContain("afterSequence");
  conn.request("2", "orchestration.dispatchCommand", { type: "project.delete", projectId: "p" });
  expect((await conn.next(isExitFor("2"))).exit).toMatchObject({ _tag: "Failure" });
  await conn.close();
  await bystanderStillServed();
});

it("ACKs and Interrupts for unknown requests change nothing", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.ack("999");
  conn.send({ _tag: "Ack" });
  conn.send({ _tag: "Interrupt", requestId: "998" });
  conn.request("1", "orchestration.subscribeShell", { requestCompletionMarker: true });
  await conn.next(isChunkFor("1"));
  conn.send({ _tag: "Ping" });
  await conn.next((f) => f._tag === "Pong");
  // still one chunk: the stray ACKs did not release the next chunk early
  expect(conn.frames.filter(isChunkFor("1"))).toHaveLength(1);
  await conn.close();
  await bystanderStillServed();
});

it("a socket dropped mid-stream is cleaned up without harm", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.request("1", "orchestration.subscribeShell", { afterSequence: 20, requestCompletionMarker: true });
  await conn.next(isChunkFor("1"));
  conn.ws.terminate();
  await conn.closed;
  await bystanderStillServed();
});

it.each([
  ["an Ack without requestId", { _tag: "Ack" }],
  ["an Ack with a non-numeric requestId", { _tag: "Ack", requestId: "abc" }],
  [
    "a Request with a non-numeric id",
    { _tag: "Request", id: "abc", tag: "server.getConfig", payload: null, headers: [] },
  ],
  ["a Request without headers", { _tag: "Request", id: "1", tag: "server.getConfig", payload: null }],
  ["a JSON value that is not an object", null],
  ["a numeric request id", { _tag: "Request", id: 7, tag: "server.getConfig", payload: null, headers: [] }],
])("%s gets a Defect and the socket stays open", async (_name, message) => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.send(JSON.stringify(message));
  await conn.next((f) => f._tag === "Defect");
  conn.send({ _tag: "Ping" });
  await conn.next((f) => f._tag === "Pong");
  await conn.close();
  await bystanderStillServed();
});

it("deeply nested JSON gets a Defect; the socket and others stay usable", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  const deep = `${"[".repeat(400_000)}${"]".repeat(400_000)}`;
  conn.send(
    `{"_tag":"Request","id":"1","tag":"orchestration.subscribeShell","payload":{"afterSequence":${deep}},"headers":[]}`,
  );
  expect(await conn.next((f) => f._tag === "Defect")).toMatchObject({
    defect: { message: expect.stringContaining("nest deeper") },
  });
  conn.send({ _tag: "Ping" });
  await conn.next((f) => f._tag === "Pong");
  await conn.close();
  await bystanderStillServed();
});

it("a binary frame carrying a JSON message is answered like a text frame", async () => {
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.ws.send(Buffer.from(JSON.stringify({ _tag: "Ping" })), { binary: true });
  await conn.next((f) => f._tag === "Pong");
  await conn.close();
});
