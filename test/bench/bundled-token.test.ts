// A bench token other than the dev token reaches a bundled variant through its environment
// (--token-env), never its command line, which `ps` shows to every user of the machine.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { SERVER_TOKEN_ENV, startTarget, type Target } from "../../scripts/bench/trial/launch.js";
import { upgradeStatus } from "../support/raw-ws.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const SECRET = "bench-secret-7f3a9c21e5d4";
let fixtures: TempFixtures;
let target: Target;

beforeAll(async () => {
  fixtures = tempFixtures("catchup-bundled-token");
  const db = fixtures.make("token", { projects: 5, scriptBytes: 256, events: 10 });
  target = await startTarget(
    { name: "legacy", kind: "bundled", delivery: "legacy", serverArgs: [] },
    { db, urlPath: "/ws", token: SECRET, startTimeoutMs: 20_000, inspect: false },
  );
}, 30_000);

afterAll(async () => {
  await target?.stop();
  fixtures?.cleanup();
});

describe("a bundled variant with a bench token", () => {
  it("has the token in its environment, not on its command line", () => {
    const cmdline = readFileSync(`/proc/${target.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline.join(" ")).not.toContain(SECRET);
    expect(cmdline).toEqual(expect.arrayContaining(["--token-env", SERVER_TOKEN_ENV]));
    const environ = readFileSync(`/proc/${target.pid}/environ`, "utf8").split("\0");
    expect(environ).toContain(`${SERVER_TOKEN_ENV}=${SECRET}`);
  });

  it("accepts that token and no longer the dev token", async () => {
    expect(await upgradeStatus(target.url, { bearer: SECRET })).toBe(101);
    expect(await upgradeStatus(target.url, { bearer: DEV_TOKEN })).toBe(401);
  });
});
