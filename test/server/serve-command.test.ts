// `catchup-bench serve`: runs the server as a child, passes flags through, forwards signals, and
// leaves no server behind when the wrapper itself is killed.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isAlive } from "../../scripts/sampler/procfs.js";
import { isExitFor, RawConnection } from "../support/raw-ws.js";
import { DEV_TOKEN } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));
let fixtures: TempFixtures;
let db: string;

beforeAll(() => {
  fixtures = tempFixtures();
  db = fixtures.make("serve", { projects: 10, scriptBytes: 64, events: 10 });
}, 60_000);

afterAll(() => fixtures?.cleanup());

async function serve(
  args: string[],
): Promise<{ child: ChildProcess; ready: { url: string; pid: number; delivery: string } }> {
  const child = spawn(process.execPath, [BIN, "serve", "--db", db, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const ready = await new Promise<{ url: string; pid: number; delivery: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("serve: no ready line within 20 s")), 20_000);
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) {
        clearTimeout(timer);
        resolve(JSON.parse(out.slice(0, out.indexOf("\n"))));
      }
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code} before ready`)));
  });
  return { child, ready };
}

/**
 * Waits for a process we did not spawn to go away (polling /proc state, bounded by a deadline). A
 * zombie counts as gone: once its parent (the killed wrapper) is dead, it waits for whatever adopts
 * it to collect its status, which may take a while or never happen in a container.
 */
async function gone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

it("passes flags through, serves, and exits 143 (128 + SIGTERM) on SIGTERM", async () => {
  const { child, ready } = await serve(["--delivery", "batched"]);
  expect(ready.delivery).toBe("batched");
  expect(ready.pid).not.toBe(child.pid);
  const conn = await RawConnection.open(ready.url, { bearer: DEV_TOKEN });
  conn.request("1", "server.getConfig", null);
  expect((await conn.next(isExitFor("1"))).exit).toMatchObject({ value: { delivery: "batched" } });
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  expect(await exited).toEqual([143, null]);
  expect(await gone(ready.pid)).toBe(true);
});

it("exits 130 (128 + SIGINT) after Ctrl-C once ready", async () => {
  const { child, ready } = await serve([]);
  const exited = once(child, "exit");
  child.kill("SIGINT");
  expect(await exited).toEqual([130, null]);
  expect(await gone(ready.pid)).toBe(true);
});

it("a --host that is no address or host name exits 2 with one line naming it", async () => {
  const child = spawn(process.execPath, [BIN, "serve", "--db", db, "--host", "not a host"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const [code] = await once(child, "exit");
  expect(code, err).toBe(2);
  expect(err.trimEnd().split("\n"), err).toHaveLength(1);
  expect(err).toMatch(/--host must be an IP address or a host name .*"not a host"/);
});

it("a server flag error exits 2 through the wrapper", async () => {
  const child = spawn(process.execPath, [BIN, "serve", "--db", db, "--delivery", "nope"], { stdio: "ignore" });
  const [code] = await once(child, "exit");
  expect(code).toBe(2);
});

it("the server goes away when the wrapper is SIGKILLed", async () => {
  const { child, ready } = await serve([]);
  child.kill("SIGKILL");
  await once(child, "exit");
  expect(await gone(ready.pid)).toBe(true);
});
