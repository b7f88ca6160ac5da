// The bundled server's bound on request headers counts the client's delay, not the server's own
// event-loop stalls: a request that arrived in time but sat unread while the loop was blocked (as
// under a reconnect storm, when many catch-ups are built at once) is served, not answered 408.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { boundedUpgradeServer } from "../../server-under-test/server.js";
import { blockFor } from "../support/block.js";

const BOUND_MS = 200;
/** The stall lasts this long after the client's request reached the kernel: well past the bound. */
const STALL_MS = 5 * BOUND_MS;
const WAIT_MS = 20_000;

let server: Server | null = null;
let dir: string | null = null;
afterEach(async () => {
  if (server) await new Promise((r) => server?.close(r));
  server = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

async function listening(s: Server): Promise<number> {
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  return (s.address() as AddressInfo).port;
}

/**
 * A client in another process (so it writes while this process is blocked): connects, writes
 * `request`, touches `mark` once the bytes are handed to the kernel, prints the response status
 * lines joined by "|" (empty if the server closed without one).
 */
function client(port: number, request: string, mark: string): Promise<string> {
  const code = `
    const net = require("node:net"), fs = require("node:fs");
    let out = "";
    const s = net.connect(${port}, "127.0.0.1", () => s.write(${JSON.stringify(request)}, () => fs.writeFileSync(${JSON.stringify(mark)}, "")));
    s.on("data", (d) => { out += d; }).on("error", () => {});
    s.on("close", () => process.stdout.write((out.match(/HTTP\\/1\\.1 \\d{3}[^\\r]*/g) ?? []).join("|")));
    setTimeout(() => { process.stdout.write("no answer"); process.exit(0); }, ${WAIT_MS}).unref();`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  return once(child, "exit").then(() => out);
}

/** Blocks this thread (the server's event loop) until `mark` exists, then for STALL_MS more. */
function stallAfter(mark: string): void {
  const give = Date.now() + WAIT_MS;
  while (!existsSync(mark) && Date.now() < give) {
    // the client has not written yet
  }
  blockFor(STALL_MS);
}

describe("request-header bound under a server stall", () => {
  it("serves a request that arrived in time while the event loop was blocked past the bound", async () => {
    dir = mkdtempSync(join(tmpdir(), "upgrade-stall-"));
    const mark = join(dir, "sent");
    const s = boundedUpgradeServer(BOUND_MS);
    server = s;
    s.on("request", (_req, res) => res.end("ok"));
    // Accepted, not yet read: the stall starts before the server could read the request.
    s.once("connection", () => stallAfter(mark));
    const port = await listening(s);
    const status = await client(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", mark);
    expect(existsSync(mark)).toBe(true);
    expect(status).toBe("HTTP/1.1 200 OK");
  }, 30_000);

  it("still answers 408 to a client that never completes its request", async () => {
    dir = mkdtempSync(join(tmpdir(), "upgrade-stall-"));
    const s = boundedUpgradeServer(BOUND_MS);
    server = s;
    s.on("request", (_req, res) => res.end("ok"));
    const port = await listening(s);
    const status = await client(port, "GET / HTTP/1.1\r\nHost: x\r\n", join(dir, "sent"));
    expect(status).toBe("HTTP/1.1 408 Request Timeout");
  }, 30_000);

  it("bounds the next request on a keep-alive connection too, from the end of the previous response", async () => {
    dir = mkdtempSync(join(tmpdir(), "upgrade-stall-"));
    const s = boundedUpgradeServer(BOUND_MS);
    server = s;
    s.on("request", (_req, res) => res.end("ok"));
    const port = await listening(s);
    const status = await client(
      port,
      "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n",
      join(dir, "sent"),
    );
    expect(status).toBe("HTTP/1.1 200 OK|HTTP/1.1 408 Request Timeout");
  }, 30_000);
});
