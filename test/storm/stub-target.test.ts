// bench:client's stub target speaks enough of the protocol for the storm driver's delayed-ACK
// sessions: every session of a small storm catches up (marker after the first ACK), and its
// process ends when its parent closes its stdin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPLETION_MARKER, DEV_TOKEN, SUBSCRIBE_TAG, SUBSCRIBE_TEMPLATE } from "../../scenarios/lib/protocol.js";
import { subscribePayloadFor } from "../../scripts/driver/session-spec.js";
import { startStubServer } from "../../scripts/selfbench/client-target.js";
import { runStormClients } from "../../scripts/storm/fleet.js";

let stub: Awaited<ReturnType<typeof startStubServer>>;

beforeAll(async () => {
  stub = await startStubServer();
}, 60_000);

afterAll(async () => {
  await stub?.stop();
});

describe("the stub target", () => {
  it("serves every session of a small storm through the storm driver", async () => {
    const run = await runStormClients({
      clients: 20,
      rampMs: 200,
      resumeRatio: 1,
      spec: {
        url: stub.url,
        token: DEV_TOKEN,
        headers: {},
        subscribeTag: SUBSCRIBE_TAG,
        subscribePayload: subscribePayloadFor(SUBSCRIBE_TEMPLATE, 0),
        completion: COMPLETION_MARKER,
        ackDelayMs: 10,
        holdMs: 10,
        probe: null,
        timeoutMs: 30_000,
      },
      snapshotPayload: subscribePayloadFor(SUBSCRIBE_TEMPLATE, null),
    });
    expect(run.sessions).toHaveLength(20);
    for (const s of run.sessions) expect(s.ok, s.error ?? "").toBe(true);
    expect(stub.backlog).toBeGreaterThan(0);
  }, 60_000);
});
