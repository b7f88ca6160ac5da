// Scenario parameters from env (validated, one-line errors naming the variable), case cursors from
// a server.getConfig reply, and per-session rows rebuilt from k6 summary data.
import { describe, expect, it } from "vitest";
import { afterSequenceFor, findSequences, parseCompletion, scenarioConfigFromEnv } from "../../scenarios/lib/env.js";
import { SESSION_FIGURES } from "../../scenarios/lib/session.js";
import { rowsFromSummary, sessionThresholds } from "../../scenarios/lib/summary.js";
import { k6EnvFor, sessionErrorsFromLog } from "../../scripts/driver/k6.js";

describe("scenarioConfigFromEnv", () => {
  it("applies the documented defaults", () => {
    expect(scenarioConfigFromEnv({ URL: "ws://127.0.0.1:1/ws" })).toEqual({
      url: "ws://127.0.0.1:1/ws",
      token: "catchup-dev-token",
      tokenIn: "header",
      headers: {},
      subscribeTag: "orchestration.subscribeShell",
      template: '{"afterSequence":{after},"requestCompletionMarker":true}',
      completion: { field: "kind", value: "synchronized" },
      ackDelayMs: 100,
      holdMs: 0,
      probe: { tag: "server.getConfig", payload: {} },
      timeoutMs: 30_000,
    });
  });

  it("reads extra upgrade headers from HEADERS, a JSON object of strings", () => {
    const env = { URL: "ws://127.0.0.1:1/ws", HEADERS: '{"X-Api-Key":"k"}' };
    expect(scenarioConfigFromEnv(env).headers).toEqual({ "X-Api-Key": "k" });
    expect(() => scenarioConfigFromEnv({ ...env, HEADERS: '{"X-Api-Key":1}' })).toThrow(/^HEADERS: the value of/);
    expect(() => scenarioConfigFromEnv({ ...env, HEADERS: "[]" })).toThrow(/^HEADERS must be a JSON object/);
  });

  it.each([
    [{}, /^URL must be a ws:\/\/ or wss:\/\/ address/],
    [{ ACK_DELAY_MS: "-1" }, /^ACK_DELAY_MS must be an integer from 0 to 60000 \(got "-1"\)$/],
    [{ ACK_DELAY_MS: "60001" }, /^ACK_DELAY_MS must be an integer from 0 to 60000 \(got "60001"\)$/],
    [{ HOLD_MS: "60001" }, /^HOLD_MS must be an integer from 0 to 60000 \(got "60001"\)$/],
    [{ HOLD_MS: "1.5" }, /^HOLD_MS must be an integer/],
    [{ TOKEN_IN: "cookie" }, /^TOKEN_IN must be one of header, query \(got "cookie"\)$/],
    [{ COMPLETION: "kind" }, /^COMPLETION must be "exit" or FIELD=VALUE/],
    [{ PROBE_PAYLOAD: "{" }, /^PROBE_PAYLOAD must be valid JSON/],
    [{ SUBSCRIBE_PAYLOAD: "{after" }, /^SUBSCRIBE_PAYLOAD: subscribe payload template is not JSON/],
  ])("refuses %j with a message naming the variable", (env, message) => {
    const base = Object.keys(env).length === 0 ? {} : { URL: "ws://127.0.0.1:1/ws" };
    expect(() => scenarioConfigFromEnv({ ...base, ...env })).toThrow(message);
  });

  it("turns the probe off, the token off, and reads other completion rules", () => {
    const c = scenarioConfigFromEnv({ URL: "ws://h/ws", PROBE_TAG: "none", TOKEN: "", COMPLETION: "exit" });
    expect(c).toMatchObject({ probe: null, token: null, completion: "exit" });
    expect(parseCompletion("type=ready")).toEqual({ field: "type", value: "ready" });
  });
});

describe("case cursors", () => {
  it("reads the fixture's sequences from a getConfig reply; the live top-level latest wins", () => {
    const reply = { fixture: { latestSequence: 1100, cursorSequence: 100 }, latestSequence: 1105 };
    const seq = findSequences(reply);
    expect(seq).toEqual({ latestSequence: 1105, cursorSequence: 100 });
    expect(findSequences({ name: "x" })).toBeNull();
    const s = seq ?? { latestSequence: 0, cursorSequence: 0 };
    expect(["snapshot", "none", "one", "many"].map((c) => afterSequenceFor(c as "none", s))).toEqual([
      null,
      1105,
      1104,
      100,
    ]);
  });
});

describe("rows through the k6 summary", () => {
  it("declares one always-passing threshold per session and metric", () => {
    const t = sessionThresholds(2);
    // Per session: one per session figure, and the error count.
    expect(Object.keys(t)).toHaveLength(2 * (SESSION_FIGURES.length + 1));
    expect(t["catchup_acknowledged_ms{session:1}"]).toEqual(["max>=0"]);
    expect(t["catchup_chunks{session:1}"]).toEqual(["max>=0"]);
    expect(t["catchup_errors{session:0}"]).toEqual(["count>=0"]);
  });

  it("rebuilds rows, marking sessions with errors or no completion as failed", () => {
    const trend = (v: number | null) => ({ values: v === null ? { count: 0, max: 0 } : { count: 1, max: v } });
    const data = {
      metrics: {
        "catchup_completion_ms{session:0}": trend(120),
        "catchup_acknowledged_ms{session:0}": trend(220),
        "catchup_first_chunk_ms{session:0}": trend(20),
        "catchup_chunks{session:0}": trend(3),
        "catchup_values{session:0}": trend(5),
        "catchup_bytes{session:0}": trend(900),
        "catchup_probe_ms{session:0}": trend(4),
        "catchup_errors{session:0}": { values: { count: 0 } },
        "catchup_completion_ms{session:1}": trend(null),
        "catchup_errors{session:1}": { values: { count: 1 } },
      },
    };
    // Figures a summary lacks (a newer figure) rebuild as null (a time) or 0 (a count), like the last two rows.
    const none = Object.fromEntries(SESSION_FIGURES.map((f) => [f.key, f.empty]));
    expect(rowsFromSummary(data, 3)).toEqual([
      {
        ...none,
        ok: true,
        completionMs: 120,
        acknowledgedMs: 220,
        firstChunkMs: 20,
        chunks: 3,
        values: 5,
        bytes: 900,
        probeMs: 4,
        error: null,
      },
      { ok: false, ...none, error: "session failed (the reason is in the k6 log)" },
      { ok: false, ...none, error: "session did not run" },
    ]);
  });
});

describe("the k6 driver's env and log parsing", () => {
  it("passes the built payload unchanged and skips the script's getConfig lookup", () => {
    const env = k6EnvFor(
      { clients: 4, url: "ws://h/ws", token: "t", subscribePayload: { afterSequence: 7 }, probe: null, holdMs: 100 },
      "/tmp/s.json",
    );
    expect(env).toMatchObject({
      CLIENTS: "4",
      SUBSCRIBE_PAYLOAD: '{"afterSequence":7}',
      AFTER_SEQUENCE: "0",
      PROBE_TAG: "none",
      HOLD_MS: "100",
      COMPLETION: "kind=synchronized",
      SUMMARY: "/tmp/s.json",
    });
  });

  it("reads failure reasons from k6's logfmt console lines and from plain lines", () => {
    const log = [
      'time="2026-01-01T00:00:00Z" level=error msg="session 3: server defect: Unknown request tag: \\"x\\"" source=console',
      "session 0: websocket error: Unexpected server response: 401",
    ].join("\n");
    expect([...sessionErrorsFromLog(log)]).toEqual([
      [3, 'server defect: Unknown request tag: "x"'],
      [0, "websocket error: Unexpected server response: 401"],
    ]);
  });
});
