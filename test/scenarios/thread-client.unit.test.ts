// Pure: the client side of the thread cases: the thread id in the payload template, finding the
// measured thread in a server.getConfig reply, and each case's cursor and session.
import { describe, expect, it } from "vitest";
import { findThread, scenarioConfigFromEnv } from "../../scenarios/lib/env.js";
import { THREAD_SUBSCRIBE_TAG, THREAD_SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { buildSubscribePayload, withThreadId } from "../../scenarios/lib/session.js";
import { afterSequenceFor } from "../../scripts/bench/rounds/plan.js";
import { caseSessionSpec } from "../../scripts/bench/trial/sessions.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";

const meta = { cursorSequence: 500, latestSequence: 600, threadId: "thread-a", threadCursorSequence: 321 };

describe("thread payloads", () => {
  it("{thread} becomes the id (quoted or bare), {after} the cursor or nothing", () => {
    expect(buildSubscribePayload(withThreadId(THREAD_SUBSCRIBE_TEMPLATE, 'th"1'), 7)).toEqual({
      threadId: 'th"1',
      afterSequence: 7,
      requestCompletionMarker: true,
    });
    expect(buildSubscribePayload(withThreadId('{"t":{thread},"a":{after}}', "x"), null)).toEqual({ t: "x" });
  });

  it("finds the measured thread and its cursor nested in a getConfig reply", () => {
    expect(findThread({ fixture: { threadId: "thread-a", threadCursorSequence: 9 } })).toEqual({
      threadId: "thread-a",
      threadCursorSequence: 9,
    });
    expect(findThread({ fixture: { threadId: "", threadCursorSequence: 0 } })).toBeNull();
  });

  it("thread.js's defaults: the thread tag and template, overridable by env", () => {
    const defaults = { subscribeTag: THREAD_SUBSCRIBE_TAG, template: THREAD_SUBSCRIBE_TEMPLATE };
    expect(scenarioConfigFromEnv({ URL: "ws://h/ws" }, defaults)).toMatchObject(defaults);
    expect(scenarioConfigFromEnv({ URL: "ws://h/ws", SUBSCRIBE_TAG: "x.y" }, defaults).subscribeTag).toBe("x.y");
  });
});

describe("thread cases in the bench", () => {
  it("run by default against the bundled server; against a foreign target only when --cases names them", () => {
    expect(resolveConfig({}).latency.cases).toContain("thread-resume");
    const foreign = resolveConfig({ target: ["mine=node server.js --port {port}"] });
    expect(foreign.latency.cases).toEqual(["snapshot", "resume-none", "resume-one", "resume-many"]);
    const asked = resolveConfig({ target: ["mine=node server.js --port {port}"], cases: ["thread-snapshot"] });
    expect(asked.latency.cases).toEqual(["thread-snapshot"]);
  });

  it("thread-snapshot has no cursor; thread-resume the measured thread's", () => {
    expect(afterSequenceFor("thread-snapshot", meta)).toBeNull();
    expect(afterSequenceFor("thread-resume", meta)).toBe(321);
    expect(afterSequenceFor("resume-many", meta)).toBe(500);
  });

  it("a thread case's session subscribes to the thread with the thread template; a shell case to the shell", () => {
    const config = resolveConfig({});
    const thread = caseSessionSpec(config.protocol, { url: "ws://h/ws", token: "t" }, "thread-resume", meta, 0);
    expect(thread.subscribeTag).toBe("orchestration.subscribeThread");
    expect(thread.subscribePayload).toEqual({
      threadId: "thread-a",
      afterSequence: 321,
      requestCompletionMarker: true,
    });
    const shell = caseSessionSpec(config.protocol, { url: "ws://h/ws", token: "t" }, "resume-many", meta, 0);
    expect(shell.subscribeTag).toBe("orchestration.subscribeShell");
    expect(shell.subscribePayload).toEqual({ afterSequence: 500, requestCompletionMarker: true });
    const custom = resolveConfig({
      "thread-subscribe-tag": "x.thread",
      "thread-subscribe-payload": '{"id":"{thread}"}',
    });
    expect(
      caseSessionSpec(custom.protocol, { url: "ws://h/ws", token: "t" }, "thread-snapshot", meta, 0),
    ).toMatchObject({
      subscribeTag: "x.thread",
      subscribePayload: { id: "thread-a" },
    });
  });
});
