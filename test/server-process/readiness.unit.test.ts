// Readiness signals and how a failed warm-up is explained: the bundled server's ready line, line
// splitting, and the words for what an upgrade attempt saw.
import { describe, expect, it } from "vitest";
import { LineSplitter, parseReadyLine } from "../../scripts/server-process/ready.js";
import {
  blankAttempt,
  describeUpgrade,
  isUnknownTag,
  sessionRetryable,
  type UpgradeAttempt,
  upgradeRetryable,
} from "../../scripts/server-process/warmup.js";

describe("parseReadyLine", () => {
  it("reads the bundled server's ready line and ignores any other line", () => {
    const line = '{"event":"listening","url":"ws://127.0.0.1:5/ws","pid":42,"delivery":"legacy"}';
    expect(parseReadyLine(`  ${line}\r`)).toEqual({ url: "ws://127.0.0.1:5/ws", pid: 42, fields: JSON.parse(line) });
    expect(parseReadyLine("To generate the report press: Ctrl + C")).toBeNull();
    expect(parseReadyLine('{"event":"other","url":"ws://x","pid":1}')).toBeNull();
    expect(parseReadyLine('{"event":"listening","url":"ws://x"}')).toBeNull();
    expect(parseReadyLine("{not json")).toBeNull();
  });
});

describe("LineSplitter", () => {
  it("returns complete lines across chunks, CRLF trimmed, and the tail on flush", () => {
    const s = new LineSplitter();
    expect(s.push("ab")).toEqual([]);
    expect(s.push("c\r\nd\ne")).toEqual(["abc", "d"]);
    expect(s.push("f")).toEqual([]);
    expect(s.flush()).toBe("ef");
    expect(s.flush()).toBeNull();
  });
  it("keeps at most maxLine characters of an endless line", () => {
    const s = new LineSplitter();
    s.push("x".repeat(100), 10);
    expect(s.push("\n", 10)).toEqual(["x".repeat(10)]);
  });
});

const attempt = (a: Partial<UpgradeAttempt>): UpgradeAttempt => ({ ...blankAttempt(), ...a });

describe("describeUpgrade", () => {
  it("says how far the attempt got", () => {
    expect(describeUpgrade(attempt({ error: "ECONNREFUSED" }), 2000)).toBe("could not connect (ECONNREFUSED)");
    expect(describeUpgrade(attempt({ timedOut: true }), 2000)).toBe("could not connect within 2000 ms");
    expect(describeUpgrade(attempt({ connected: true, timedOut: true }), 2000)).toBe(
      "connected, but the WebSocket upgrade was not answered within 2000 ms",
    );
    expect(describeUpgrade(attempt({ connected: true, error: "ECONNRESET" }), 2000)).toBe(
      "connected, then the connection ended without an answer to the upgrade (ECONNRESET)",
    );
    expect(describeUpgrade(attempt({ connected: true, status: 401, body: '{"reason":\n"missing"}' }), 2000)).toBe(
      'connected; the server answered the WebSocket upgrade with HTTP 401: {"reason": "missing"}',
    );
    expect(describeUpgrade(attempt({ connected: true, upgraded: true }), 2000)).toBe("connected and upgraded");
  });
});

describe("retry rules", () => {
  it("retries what may pass with time, not a definite refusal", () => {
    expect(upgradeRetryable(attempt({ error: "ECONNREFUSED" }))).toBe(true);
    expect(upgradeRetryable(attempt({ connected: true, timedOut: true }))).toBe(true);
    expect(upgradeRetryable(attempt({ connected: true, status: 503 }))).toBe(true);
    expect(upgradeRetryable(attempt({ connected: true, status: 404 }))).toBe(false);
    expect(upgradeRetryable(attempt({ connected: true, status: 401 }))).toBe(false);
    expect(sessionRetryable("connection closed (code 1006) while waiting for the connection to open")).toBe(true);
    expect(sessionRetryable("server defect: Unknown request tag: x.y")).toBe(false);
    expect(sessionRetryable("bad frame: not JSON")).toBe(false);
  });
  it("recognises an unknown-tag answer (Effect 3 and 4 wording)", () => {
    expect(isUnknownTag("server defect: Unknown request tag: orchestration.subscribeShell")).toBe(true);
    expect(isUnknownTag("orchestration.subscribeShell failed: Die: RpcClientError unknown tag")).toBe(true);
    expect(isUnknownTag("timed out after 5000 ms waiting for the connection to open")).toBe(false);
    expect(isUnknownTag(null)).toBe(false);
  });
});
