// Process behaviour: ready line, signals, --exit-with-parent, bad fixtures and flags, and the
// fixture file left byte-for-byte unchanged.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNode } from "../support/child.js";
import { isChunkFor, isExitFor, RawConnection, subscribeThroughCompletion } from "../support/raw-ws.js";
import { DEV_TOKEN, SERVER_MAIN, startServer } from "../support/server.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let db: string;

beforeAll(() => {
  fixtures = tempFixtures();
  db = fixtures.make("life", { projects: 30, scriptBytes: 128, events: 30 });
}, 60_000);

afterAll(() => fixtures?.cleanup());

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Runs the server expecting it to fail before ready; returns exit code and stderr. */
async function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runNode([SERVER_MAIN, ...args], { timeoutMs: 20_000 });
  return { code, stdout, stderr };
}

describe("ready line", () => {
  it("is one JSON line on stdout with url, pid, delivery and fixture metadata", async () => {
    const server = await startServer(db, ["--delivery", "batched"]);
    try {
      expect(server.ready).toMatchObject({
        event: "listening",
        pid: server.child.pid,
        delivery: "batched",
        fixture: { projects: 30, events: 30, latestSequence: 60, schemaVersion: 1 },
      });
      expect(server.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    } finally {
      await server.stop();
    }
  });
});

describe("shutdown", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s closes open sockets and exits 0", async (signal) => {
    const server = await startServer(db);
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    await subscribeThroughCompletion(conn, "1", {});
    const result = await server.stop(signal);
    const closed = await conn.closed;
    // one assertion over everything, so a failure shows the whole picture (and the server's stderr)
    expect({ ...result, closeCode: closed.code, stderr: server.stderr() }).toEqual({
      code: 0,
      signal: null,
      closeCode: 1001,
      stderr: expect.not.stringContaining("cannot serve"),
    });
  });

  it.each(["SIGINT", "SIGTERM"] as const)(
    "%s during start-up (handlers installed, Effect still loading): exits 128 + signal, never listens",
    async (signal) => {
      const child = spawn(process.execPath, [SERVER_MAIN, "--db", db, "--port", "0"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      let out = "";
      let err = "";
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      child.stderr?.setEncoding("utf8").on("data", (d: string) => {
        err += d;
      });
      const exited = once(child, "exit");
      // Once the server holds the fixture open it is past its flags and fixture check, its signal
      // handlers are installed (in the same synchronous step), and it is loading the Effect runtime:
      // that is start-up. Bundled, that lasts only some tens of ms, so the server is frozen there
      // (SIGSTOP) while the signal is sent, and thawed with the signal pending.
      const opened = () => {
        try {
          return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === db;
            } catch {
              return false;
            }
          });
        } catch {
          return false;
        }
      };
      while (!opened() && child.exitCode === null) await new Promise((r) => setTimeout(r, 1));
      child.kill("SIGSTOP");
      child.kill(signal);
      child.kill("SIGCONT");
      const [code] = await exited;
      clearTimeout(timer);
      expect({ code, stdout: out, listened: /listening on/.test(err) }, err).toEqual({
        code: 128 + constants.signals[signal],
        stdout: "",
        listened: false,
      });
    },
  );

  it("--exit-with-parent: exits 0 when stdin closes", async () => {
    const server = await startServer(db, ["--exit-with-parent"]);
    const exited = once(server.child, "exit");
    server.child.stdin?.end();
    expect(await exited).toEqual([0, null]);
  });

  it("--exit-with-parent: exits when the IPC channel disconnects", async () => {
    const child = spawn(process.execPath, [SERVER_MAIN, "--db", db, "--port", "0", "--exit-with-parent"], {
      stdio: ["pipe", "pipe", "pipe", "ipc"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const exited = once(child, "exit");
    let out = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) child.disconnect();
    });
    const [code] = await exited;
    clearTimeout(timer);
    expect(out).toContain('"event":"listening"');
    expect(code).toBe(0);
  });

  it("without --exit-with-parent, closing stdin does not stop the server", async () => {
    const server = await startServer(db);
    server.child.stdin?.end();
    // a full round trip after stdin closed proves it is still serving
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    conn.request("1", "server.getConfig", null);
    await conn.next(isExitFor("1"));
    await conn.close();
    expect((await server.stop()).code).toBe(0);
  });
});

describe("bad input exits 2 with a one-line error", () => {
  it("missing fixture", async () => {
    const r = await runToExit(["--db", join(fixtures.dir, "nope.sqlite")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nope\.sqlite.*no such file/);
    expect(r.stdout).toBe("");
  });
  it("a file that is not SQLite", async () => {
    const path = join(fixtures.dir, "text.sqlite");
    writeFileSync(path, "hello, not a database\n");
    const r = await runToExit(["--db", path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a SQLite file/);
  });
  it("a SQLite file of an unknown schema version", async () => {
    const path = join(fixtures.dir, "foreign.sqlite");
    const other = new Database(path);
    other.exec("CREATE TABLE fixture_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    other.prepare("INSERT INTO fixture_meta VALUES ('schema_version', '99')").run();
    other.close();
    const r = await runToExit(["--db", path]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/schema version 99 is not supported/);
  });
  it.each([
    [["--db", "x", "--delivery", "fast"], /--delivery must be one of legacy, batched/],
    [["--db", "x", "--port", "70000"], /--port must be an integer from 0 to 65535/],
    [["--db", "x", "--token", "t:orchestration:write"], /--token scope must be one of/],
    [["--db", "x", "--max-initial-chunk-bytes", "0"], /--max-initial-chunk-bytes must be an integer from 1/],
    [["--db", "x", "--bogus"], /Unknown argument: bogus/],
    [[], /--db FIXTURE is required/],
  ])("flags %j", async (args, message) => {
    const r = await runToExit(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("a port already in use", () => {
  it("is one line on stderr and exit 1", async () => {
    const server = await startServer(db);
    try {
      const port = new URL(server.url).port;
      const r = await runToExit(["--db", db, "--port", port]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toMatch(
        new RegExp(`^server-under-test: cannot serve on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stdout).toBe("");
    } finally {
      await server.stop();
    }
  });
});

describe("the fixture file", () => {
  it("is byte-for-byte unchanged after subscriptions and commands", async () => {
    const before = sha256(db);
    const server = await startServer(db, ["--item-shape", "lean"]);
    const conn = await RawConnection.open(server.url, { bearer: DEV_TOKEN });
    conn.request("1", "orchestration.subscribeShell", {});
    const snapshot = (await conn.next(isChunkFor("1"))).values as { projects: { id: string }[] }[];
    for (let i = 0; i < 5; i++) {
      const projectId = snapshot[0]?.projects[i]?.id;
      conn.request(String(10 + i), "orchestration.dispatchCommand", {
        type: "project.update",
        projectId,
        title: `t${i}`,
      });
      expect((await conn.next(isExitFor(String(10 + i)))).exit).toMatchObject({ _tag: "Success" });
    }
    await conn.close();
    await server.stop();
    expect(sha256(db)).toBe(before);
  });
});
