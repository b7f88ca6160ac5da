// A fuzz connection whose own process stalls past the sentinel's bound must still classify what the
// server answered during the stall. (A timer that fires after a stall runs before the socket reads
// that queued meanwhile: CI once counted an invalid-UTF-8 frame "no-answer" instead of "closed-1007".)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { FuzzConnection } from "../../scripts/fuzz/connection.js";
import type { FuzzAction } from "../../scripts/fuzz/frames.js";
import { type FuzzTarget, startTarget } from "../../scripts/fuzz/server.js";
import { blockFor } from "../support/block.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let target: FuzzTarget;

beforeAll(async () => {
  fixtures = tempFixtures("catchup-fuzzstall");
  const db = fixtures.make("stall", { projects: 5, scriptBytes: 1024, events: 10, seed: 1 });
  target = await startTarget({ db, args: ["--token", DEV_TOKEN] });
}, 60_000);

afterAll(async () => {
  await target?.stop();
  fixtures?.cleanup();
});

const ANSWER_TIMEOUT_MS = 200;
const STALL_MS = 1_500;

/**
 * Runs one action while the server is stopped (SIGSTOP), so its answer cannot come early; once the
 * frames and the sentinel are on the wire, resumes the server and stalls this process past the
 * sentinel's bound. The server answers during the stall, and the answer waits in the socket.
 */
async function runStalled(action: FuzzAction) {
  const conn = await FuzzConnection.open({ url: target.url, token: DEV_TOKEN, answerTimeoutMs: ANSWER_TIMEOUT_MS });
  process.kill(target.pid, "SIGSTOP");
  try {
    const result = conn.run(action);
    // The sends complete into the kernel's buffers within a few ticks; should this fire before the
    // sentinel went out, the answer comes after the stall and the test passes without testing.
    await new Promise((r) => setTimeout(r, 100));
    process.kill(target.pid, "SIGCONT");
    // Stalled in the check phase, as after an I/O callback: the next loop turn runs expired timers
    // before it reads sockets.
    await new Promise<void>((r) =>
      setImmediate(() => {
        blockFor(STALL_MS);
        r();
      }),
    );
    return await result;
  } finally {
    process.kill(target.pid, "SIGCONT");
    await conn.close(true);
  }
}

describe("fuzz connection after a stall of its own process", () => {
  it("an invalid-UTF-8 frame is still classified closed-1007, not no-answer", async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"_tag":"Request","id":"1","tag":"'), 0xff, 0x22, 0x7d]);
    const r = await runStalled({
      kind: "invalid-utf8",
      variant: "stall",
      steps: [{ op: "send", frame: { binary: false, data: bytes } }],
    });
    expect(r.outcome).toBe("closed-1007");
  }, 30_000);

  it("an action the server ignores is classified ignored, not no-answer", async () => {
    const r = await runStalled({
      kind: "ack-unknown",
      variant: "stall",
      steps: [{ op: "send", frame: { binary: false, data: '{"_tag":"Ack","requestId":"424242"}' } }],
    });
    expect(r.outcome).toBe("ignored");
  }, 30_000);
});
