// bench:power's knob must reach the server it is preloaded into: the bundled server once had `ws`
// inside its bundle, so the knob patched node_modules' WebSocket class, which the server never used,
// and every injected regression was silently nothing (detection rates of a null). The knob's hold
// makes the server's RSS grow by the held size once a subscribe after the named cursor arrives.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isChunkFor, RawConnection } from "../support/raw-ws.js";
import { DEV_TOKEN, type RunningServer, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const KNOBS = fileURLToPath(new URL("../../scripts/selfbench/targets/power-knobs.mjs", import.meta.url));
const FIXTURE = { projects: 40, scriptBytes: 256, events: 20 };
const HOLD_MIB = 96;

let fixtures: TempFixtures;
let db: string;
const servers: RunningServer[] = [];

beforeAll(() => {
  fixtures = tempFixtures("catchup-knobs");
  db = fixtures.make("k", FIXTURE);
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  fixtures?.cleanup();
});

function rssMib(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
}

/** RSS growth of a knobbed server from ready to the first chunk of a subscribe after the cursor. */
async function growthMib(knobArgs: string[]): Promise<{ mib: number; stderr: string }> {
  const server = await startServer(db, knobArgs, 20_000, [`--import=${KNOBS}`]);
  servers.push(server);
  const before = rssMib(server.pid);
  const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
  conn.request("1", "orchestration.subscribeShell", {
    afterSequence: FIXTURE.projects,
    requestCompletionMarker: true,
  });
  await conn.next(isChunkFor("1"));
  const mib = rssMib(server.pid) - before;
  await conn.close();
  return { mib, stderr: server.stderr() };
}

it("holds the named size in the bundled server while the named subscription is open, and nothing without it", async () => {
  const knobbed = await growthMib(["--power-after", String(FIXTURE.projects), "--power-hold-mib", String(HOLD_MIB)]);
  expect(knobbed.stderr).toContain(`power-knobs: intercepted a subscribe after ${FIXTURE.projects}`);
  expect(knobbed.mib).toBeGreaterThan(HOLD_MIB * 0.9);
  const other = await growthMib(["--power-after", "7", "--power-hold-mib", String(HOLD_MIB)]);
  expect(other.stderr).not.toContain("intercepted");
  expect(other.mib).toBeLessThan(HOLD_MIB * 0.5);
});
