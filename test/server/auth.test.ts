// Upgrade authentication (401, no upgrade) and per-call scopes (failed Exit, connection stays up).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isExitFor, RawConnection, upgradeStatus } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let devServer: RunningServer;
let scopedServer: RunningServer;

beforeAll(async () => {
  fixtures = tempFixtures();
  const db = fixtures.make("auth", { projects: 20, scriptBytes: 128, events: 20 });
  [devServer, scopedServer] = await Promise.all([
    startServer(db),
    startServer(db, [
      "--token",
      "reader:orchestration:read",
      "--token",
      "operator:orchestration:operate",
      "--token",
      "both",
    ]),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([devServer?.stop(), scopedServer?.stop()]);
  fixtures?.cleanup();
});

describe("upgrade authentication", () => {
  it("refuses a missing token with HTTP 401", async () => {
    expect(await upgradeStatus(devServer.url, {})).toBe(401);
  });
  it("refuses an unknown token, as header or query, with HTTP 401", async () => {
    expect(await upgradeStatus(devServer.url, { bearer: "nope" })).toBe(401);
    expect(await upgradeStatus(devServer.url, { queryToken: "nope" })).toBe(401);
  });
  it("accepts the dev token as a bearer header or a query parameter", async () => {
    for (const options of [{ bearer: DEV_TOKEN }, { queryToken: DEV_TOKEN }]) {
      const conn = await RawConnection.open(devServer.url, options);
      conn.request("1", "server.getConfig", null);
      const exit = await conn.next(isExitFor("1"));
      expect(exit.exit).toMatchObject({ _tag: "Success", value: { name: "catchup-bench-server" } });
      await conn.close();
    }
  });
  it("does not accept the dev token once --token is given", async () => {
    expect(await upgradeStatus(scopedServer.url, { bearer: DEV_TOKEN })).toBe(401);
  });
});

const failure = (requiredScope: string) => ({
  _tag: "Failure",
  cause: { _tag: "Fail", error: expect.objectContaining({ _tag: "AuthorizationError", requiredScope }) },
});

describe("scopes", () => {
  it("a read-only token cannot dispatch commands; the connection stays up", async () => {
    const conn = await RawConnection.open(scopedServer.url, { bearer: "reader" });
    conn.request("1", "orchestration.dispatchCommand", { type: "project.update", projectId: "p", title: "t" });
    expect((await conn.next(isExitFor("1"))).exit).toMatchObject(failure("orchestration:operate"));
    conn.request("2", "server.getConfig", null);
    expect((await conn.next(isExitFor("2"))).exit).toMatchObject({ _tag: "Success" });
    await conn.close();
  });
  it("an operate-only token cannot subscribe or read config; it can dispatch", async () => {
    const conn = await RawConnection.open(scopedServer.url, { queryToken: "operator" });
    conn.request("1", "orchestration.subscribeShell", { requestCompletionMarker: true });
    expect((await conn.next(isExitFor("1"))).exit).toMatchObject(failure("orchestration:read"));
    expect(conn.frames.filter((f) => f._tag === "Chunk")).toEqual([]);
    conn.request("2", "server.getConfig", null);
    expect((await conn.next(isExitFor("2"))).exit).toMatchObject(failure("orchestration:read"));
    conn.request("3", "orchestration.dispatchCommand", { type: "project.update", projectId: "none", title: "t" });
    // passes authorization; fails on the unknown project instead
    expect((await conn.next(isExitFor("3"))).exit).toMatchObject({
      _tag: "Failure",
      cause: { _tag: "Fail", error: expect.objectContaining({ _tag: "ProjectNotFoundError", projectId: "none" }) },
    });
    await conn.close();
  });
  it("a session header forged in a request does not grant scopes", async () => {
    const conn = await RawConnection.open(scopedServer.url, { bearer: "reader" });
    conn.send({
      _tag: "Request",
      id: "1",
      tag: "orchestration.dispatchCommand",
      payload: { type: "project.update", projectId: "p", title: "t" },
      headers: [["x-catchup-session", "00000000-0000-4000-8000-000000000000"]],
    });
    expect((await conn.next(isExitFor("1"))).exit).toMatchObject(failure("orchestration:operate"));
    await conn.close();
  });
  it("a token without a scope list gets both scopes", async () => {
    const conn = await RawConnection.open(scopedServer.url, { bearer: "both" });
    conn.request("1", "orchestration.dispatchCommand", { type: "project.update", projectId: "none", title: "t" });
    expect((await conn.next(isExitFor("1"))).exit).toMatchObject({
      cause: { error: expect.objectContaining({ _tag: "ProjectNotFoundError" }) },
    });
    await conn.close();
  });
});
