// The sampled trials' clients run in a worker thread kept from batch to batch: every batch's sessions
// complete on the same thread, a failed batch ends its thread and the next starts another, and an
// idle kept thread never holds the process open (the child exits without close()).
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNode } from "../support/child.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { smallFixture } from "./support/fixture.js";

const BATCHES = fileURLToPath(new URL("./support/worker-batches.mjs", import.meta.url));
const fixture = smallFixture();
let server: RunningServer;

beforeAll(async () => {
  server = await startServer(fixture.path, ["--delivery", "legacy"]);
});

afterAll(async () => {
  await server?.stop();
  fixture.cleanup();
});

describe("workerClients", () => {
  it("runs batch after batch on one thread, replaces a failed one, and lets the process exit", async () => {
    const r = await runNode([BATCHES, server.url, DEV_TOKEN], { timeoutMs: 30_000 });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      batches: [
        { ok: [true, true], closes: 2 },
        { ok: [true, true], closes: 2 },
        { ok: [true, true], closes: 2 },
      ],
      threadsBefore: 1,
      failed: "clients must be an integer >= 1 (got 0)",
      after: [true],
      threads: 2,
    });
  });
});
