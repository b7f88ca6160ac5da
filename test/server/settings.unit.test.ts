// Pure: flag parsing, token specs and the incoming-message shape check.
import { describe, expect, it } from "vitest";
import { DEV_TOKEN, parseToken, presentedToken, tokenTable } from "../../server-under-test/auth.js";
import { checkMessage, jsonDepth, MAX_MESSAGE_DEPTH } from "../../server-under-test/serialization.js";
import { parseSettings, SettingsError } from "../../server-under-test/settings.js";

describe("parseSettings", () => {
  it("applies the documented defaults", () => {
    expect(parseSettings(["--db", "f.sqlite"])).toEqual({
      db: "f.sqlite",
      host: "127.0.0.1",
      port: 0,
      delivery: "legacy",
      itemShape: "reference",
      tokens: [],
      maxReplayEvents: 1000,
      maxReplayBytes: 8388608,
      maxInitialChunkBytes: undefined,
      replayGroupItems: 512,
      replayGroupWindowMs: 50,
      upgradeTimeoutMs: 10000,
      backlog: 511,
      exitWithParent: false,
      checkFlags: false,
    });
  });
  it("reads every flag, tokens repeatable", () => {
    const s = parseSettings([
      "--db=f",
      "--host",
      "::1",
      "--port",
      "8080",
      "--delivery",
      "batched",
      "--token",
      "a:orchestration:read",
      "--token",
      "b",
      "--max-replay-events",
      "5",
      "--max-replay-bytes",
      "6",
      "--max-initial-chunk-bytes",
      "7",
      "--item-shape",
      "lean",
      "--replay-group-items",
      "8",
      "--replay-group-window-ms",
      "9",
      "--backlog",
      "4096",
      "--exit-with-parent",
      "--check-flags",
    ]);
    expect(s).toMatchObject({ replayGroupItems: 8, replayGroupWindowMs: 9, backlog: 4096, checkFlags: true });
    expect(s).toMatchObject({ host: "::1", port: 8080, delivery: "batched", maxReplayEvents: 5, maxReplayBytes: 6 });
    expect(s.itemShape).toBe("lean");
    expect(s.maxInitialChunkBytes).toBe(7);
    expect(s.exitWithParent).toBe(true);
    expect(s.tokens).toEqual([
      { token: "a", scopes: ["orchestration:read"] },
      { token: "b", scopes: ["orchestration:read", "orchestration:operate"] },
    ]);
  });
  it.each([
    [["--db", "f", "--port", "-1"], "--port must be an integer from 0 to 65535"],
    [["--db", "f", "--backlog", "0"], '--backlog must be an integer from 1 to 65535 (got "0")'],
    [["--db", "f", "--backlog"], "--backlog needs a value: --backlog N"],
    [["--db", "f", "--max-replay-events", "1.5"], "--max-replay-events must be an integer"],
    [["--db", "f", "--delivery", "x"], "--delivery must be one of legacy, batched"],
    [["--db", "f", "--max-projected-bytes", "-1"], "--max-projected-bytes must be an integer from 0"],
    [["--db", "f", "--max-projected-bytes"], "--max-projected-bytes needs a value: --max-projected-bytes N"],
    [["--db", "f", "--item-shape", "full"], '--item-shape must be one of reference, lean (got "full")'],
    [["--db", "f", "--item-shape"], "--item-shape needs a value: --item-shape reference|lean"],
    [["--db", "f", "--token", ":orchestration:read"], "non-empty SECRET"],
    [["--db", "f", "--nope"], "Unknown argument"],
    [["--db", "f", "--token"], "--token needs a value: --token SECRET[:scope,scope]"],
    [["--db", "f", "--token="], "--token needs a value: --token SECRET[:scope,scope]"],
    [["--db", "f", "--token", "--port", "1"], "--token needs a value: --token SECRET[:scope,scope]"],
    [["--db", "f", "--token", "a", "--token"], "--token needs a value"],
    [["--db"], "--db needs a value: --db FIXTURE"],
    [["--db", "f", "--host"], "--host needs a value: --host HOST"],
    [["--db", "f", "--host="], "--host needs a value: --host HOST"],
    [["--db", "f", "--port"], "--port needs a value"],
    [["--db", "f", "--delivery"], "--delivery needs a value: --delivery legacy|batched"],
    [["--db", "f", "--max-replay-events"], "--max-replay-events needs a value"],
    [["--db", "f", "--maxReplayBytes"], "--max-replay-bytes needs a value"],
    [["--db", "f", "--max-initial-chunk-bytes", "--delivery", "batched"], "--max-initial-chunk-bytes needs a value"],
    [["--db", "f", "--upgrade-timeout-ms"], "--upgrade-timeout-ms needs a value"],
    [["--db", "f", "--upgrade-timeout-ms", "0"], "--upgrade-timeout-ms must be an integer from 1 to 2147483647"],
    [["--db", "f", "--replay-group-items", "0"], "--replay-group-items must be an integer from 1"],
    [
      ["--db", "f", "--replay-group-window-ms", "0"],
      "--replay-group-window-ms must be an integer from 1 to 2147483647",
    ],
    [["--db", "f", "--replay-group-window-ms"], "--replay-group-window-ms needs a value: --replay-group-window-ms N"],
  ])("rejects %j", (argv, message) => {
    expect(() => parseSettings(argv)).toThrow(SettingsError);
    expect(() => parseSettings(argv)).toThrow(message);
  });
  it("--token-env reads tokens from the environment, after --token ones", () => {
    const env = { T1: "s3cret-one:orchestration:read", T2: "s3cret-two" };
    const s = parseSettings(["--db", "f", "--token", "a", "--token-env", "T1", "--token-env", "T2"], env);
    expect(s.tokens).toEqual([
      { token: "a", scopes: ["orchestration:read", "orchestration:operate"] },
      { token: "s3cret-one", scopes: ["orchestration:read"] },
      { token: "s3cret-two", scopes: ["orchestration:read", "orchestration:operate"] },
    ]);
  });
  it.each([
    [{}, "--token-env T: the environment variable T is not set or empty"],
    [{ T: "" }, "--token-env T: the environment variable T is not set or empty"],
    [{ T: "s3cret:orchestration:write" }, "--token-env T: its value must be SECRET[:scope,scope]"],
    [{ T: ":orchestration:read" }, "--token-env T: its value must be SECRET[:scope,scope]"],
  ])("--token-env refuses %j without quoting the value", (env, message) => {
    let error: unknown;
    try {
      parseSettings(["--db", "f", "--token-env", "T"], env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain("s3cret");
  });
});

describe("tokens", () => {
  it("the dev token applies only when no token is configured", () => {
    expect([...tokenTable([]).keys()]).toEqual([DEV_TOKEN]);
    expect([...tokenTable([parseToken("x")]).keys()]).toEqual(["x"]);
  });
  it("a bearer header wins over the query; either works alone", () => {
    const url = (q: string) => new URL(`http://h/ws${q}`);
    expect(presentedToken("Bearer abc", url("?token=q"))).toBe("abc");
    expect(presentedToken(undefined, url("?token=q"))).toBe("q");
    expect(presentedToken("Basic abc", url(""))).toBeUndefined();
  });
});

describe("checkMessage", () => {
  it.each([
    [{ _tag: "Request", id: "1", tag: "t", payload: {}, headers: [] }],
    [{ _tag: "Ack", requestId: "1" }],
    [{ _tag: "Ping" }],
    [[{ _tag: "Ping" }]],
  ])("accepts %j", (m) => {
    expect(() => checkMessage(m)).not.toThrow();
  });
  it.each([
    [null, "JSON object"],
    [{ _tag: "Ack", requestId: "x" }, "Invalid Ack requestId"],
    [{ _tag: "Interrupt" }, "Invalid Interrupt requestId"],
    [{ _tag: "Request", id: "1", tag: "t", payload: {} }, "headers"],
    [{ _tag: "Request", id: "1", tag: "t", payload: {}, headers: [["a"]] }, "headers"],
  ])("rejects %j", (m, message) => {
    expect(() => checkMessage(m)).toThrow(message);
  });
});

describe("jsonDepth", () => {
  it("counts object and array nesting", () => {
    expect(jsonDepth(1, 10)).toBe(0);
    expect(jsonDepth({ a: [1, { b: [] }] }, 10)).toBe(4);
  });
  it("stops early past the limit and checkMessage refuses it", () => {
    const deep = JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`);
    expect(jsonDepth(deep, 5)).toBe(6);
    expect(() => checkMessage({ _tag: "Ping", pad: deep })).toThrow(`deeper than ${MAX_MESSAGE_DEPTH}`);
  });
});
