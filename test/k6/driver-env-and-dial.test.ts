// The k6 driver (scripts/driver/k6.ts) under a fake `k6` that runs the k6 double (a TEST AID: k6
// cannot be installed here): K6_* and scenario variables in the harness's environment do not change
// what the run measures (the driver passes k6 a filtered environment), and a dial that hangs past
// the session timeout (k6 keeps the iteration until the dial ends, up to its 60 s handshake
// timeout) does not make the driver kill k6 and lose the rows.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k6ProcessDeadlineMs } from "../../scripts/driver/k6.js";
import { k6ProcessEnv } from "../../scripts/driver/k6-env.js";
import { smallFixture } from "../scenarios/support/fixture.js";
import { writeFakeK6 } from "../scenarios/support/k6-double.js";
import { type RunningServer, startServer } from "../support/server.js";
import { driverRun } from "./support.js";

const fixture = smallFixture();
let legacy: RunningServer;
let work: string;
let fake: string;

beforeAll(async () => {
  legacy = await startServer(fixture.path, ["--delivery", "legacy"]);
  work = mkdtempSync(join(tmpdir(), "catchup-k6-driver-"));
  fake = writeFakeK6(work);
});

afterAll(async () => {
  await legacy?.stop();
  fixture.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the k6 process's environment", () => {
  it("keeps PATH and the like, drops K6_* and scenario variables, then adds the parameters", () => {
    const env = k6ProcessEnv(
      { PATH: "/bin", HOME: "/h", K6_ITERATIONS: "3", K6_NO_THRESHOLDS: "true", CASE: "one", RAMP_MS: "5" },
      { URL: "ws://x/ws", K6_NEW_MACHINE_READABLE_SUMMARY: "false" },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", URL: "ws://x/ws", K6_NEW_MACHINE_READABLE_SUMMARY: "false" });
  });

  it("K6_SUMMARY_MODE, K6_ITERATIONS, K6_NO_THRESHOLDS, CASE and THRESHOLDS in the harness's env change nothing", async () => {
    const polluted = {
      K6_SUMMARY_MODE: "disabled",
      K6_ITERATIONS: "3",
      K6_NO_THRESHOLDS: "true",
      CASE: "one",
      THRESHOLDS: '{"catchup_errors":["count<0"]}',
    };
    const result = await driverRun(fake, legacy.url, {}, polluted);
    expect(result.exitCode).toBe(0);
    expect(result.rows.map((r) => [r.ok, r.chunks])).toEqual([
      [true, 2],
      [true, 2],
    ]);
  });
});

/** A TCP server that accepts connections and never answers the upgrade; drops them all after holdMs. */
async function hangingDials(holdMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const held = new Set<Socket>();
  let timer: NodeJS.Timeout | undefined;
  const server: Server = createServer((socket) => {
    held.add(socket);
    socket.on("error", () => {});
    // The dial hangs this long from the first connection, as against an overloaded server, then fails.
    timer ??= setTimeout(() => {
      for (const s of held) s.destroy();
    }, holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    close: () => {
      clearTimeout(timer);
      for (const s of held) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("a dial that hangs past the session timeout", () => {
  it("the deadline covers k6's 60 s handshake timeout", () => {
    expect(k6ProcessDeadlineMs(300)).toBeGreaterThan(60_000 + 300);
    expect(k6ProcessDeadlineMs(120_000)).toBeGreaterThan(120_000);
  });

  it("keeps the rows: k6 is not killed while the timed-out session's dial is still open", async () => {
    // 32 s: longer than the old deadline (session timeout + 30 s), well inside k6's 60 s handshake timeout.
    const target = await hangingDials(32_000);
    try {
      const result = await driverRun(fake, target.url, { probe: null, timeoutMs: 300 });
      expect(result.rows).toHaveLength(2);
      for (const row of result.rows) {
        expect(row).toMatchObject({ ok: false, completionMs: null });
        expect(row.error).toMatch(/timed out after 300 ms waiting for the connection to open/);
      }
    } finally {
      await target.close();
    }
  }, 100_000);
});
