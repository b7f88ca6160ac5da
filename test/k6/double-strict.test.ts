// The k6 double (a TEST AID: k6 cannot be installed here) refuses what real k6 refuses and hangs
// where real k6 hangs, and the scripts pass under it: close() only on an OPEN socket, binaryType
// "blob", k6's metric names, threshold aggregations per metric type (exit 104), one module instance
// per VU, setup data through JSON, summary files only into existing directories, and
// K6_NEW_MACHINE_READABLE_SUMMARY noticed rather than misread.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { smallFixture } from "../scenarios/support/fixture.js";
import { writeFakeK6 } from "../scenarios/support/k6-double.js";
import { type RunningServer, startServer } from "../support/server.js";
import { driverRun, runDouble } from "./support.js";

const fixture = smallFixture();
let legacy: RunningServer;
let work: string;

beforeAll(async () => {
  legacy = await startServer(fixture.path, ["--delivery", "legacy"]);
  work = mkdtempSync(join(tmpdir(), "catchup-k6-strict-"));
});

afterAll(async () => {
  await legacy?.stop();
  fixture.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

let n = 0;
/** Writes a throwaway script (and optional modules beside it) and returns its path. */
function script(source: string, modules: Record<string, string> = {}): string {
  const dir = join(work, `s${n++}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(modules)) writeFileSync(join(dir, name), text);
  const path = join(dir, "script.js");
  writeFileSync(path, source);
  return path;
}

/** A TCP server that accepts connections and never answers the WebSocket upgrade, until released. */
async function silentServer(): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  const held = new Set<Socket>();
  const server: Server = createServer((socket) => {
    held.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    release: () => {
      for (const s of held) s.destroy();
      held.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("close() while CONNECTING", () => {
  it("a dial that fails while close() waits for it: the double ends the run where k6 would hang", async () => {
    // A loopback port with nothing listening: the dial is refused after close() was called.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const path = script(
      `import { WebSocket } from "k6/websockets";\nexport default function () { const ws = new WebSocket("ws://127.0.0.1:${port}/ws"); ws.close(); }\n`,
    );
    const run = await runDouble(path);
    expect(run.stderr).toMatch(/close\(\) while CONNECTING would hang k6: the dial to .* failed/);
    expect(run.code).toBe(1);
  });

  it("a session that times out while connecting leaves the socket to its failing dial (snapshot.js)", async () => {
    const silent = await silentServer();
    const summary = join(work, "connecting-summary.json");
    try {
      const run = await runDouble("snapshot.js", {
        env: { URL: silent.url, TIMEOUT_MS: "200", SUMMARY: summary },
        // Once the session has given up, the dial fails, as under an overloaded server.
        onStderr: (text) => {
          if (/session 0: timed out/.test(text)) silent.release();
        },
      });
      expect(run.stderr).not.toMatch(/would hang k6/);
      expect(run.code).toBe(0);
      const body = JSON.parse(readFileSync(summary, "utf8"));
      expect(body.rows[0]).toMatchObject({ ok: false, completionMs: null });
      expect(run.stderr).toMatch(/session 0: timed out after 200 ms waiting for the connection to open/);
    } finally {
      silent.release();
      await silent.close();
    }
  });
});

describe("the double's k6 rules", () => {
  it('binaryType is "blob" by default, and binary frames arrive as a Blob', async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    wss.on("connection", (ws) => ws.send(Buffer.from([1, 2, 3])));
    await new Promise((resolve) => wss.once("listening", resolve));
    try {
      const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
      const path = script(
        `import { WebSocket } from "k6/websockets";\nexport default function () {\n  const ws = new WebSocket(${JSON.stringify(url)});\n  ws.onmessage = (e) => { console.log("binaryType", ws.binaryType, e.data instanceof Blob ? "Blob" : typeof e.data); ws.close(); };\n}\n`,
      );
      const run = await runDouble(path);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/binaryType blob Blob/);
    } finally {
      await new Promise((resolve) => wss.close(resolve));
    }
  });

  it("refuses a metric name k6 refuses (script error, exit 107)", async () => {
    const path = script(
      'import { Trend } from "k6/metrics";\nnew Trend("catchup-latency");\nexport default function () {}\n',
    );
    const run = await runDouble(path);
    expect(run.code).toBe(107);
    expect(run.stderr).toMatch(/invalid metric name "catchup-latency"/);
  });

  it.each([
    ['{"catchup_errors":["max<1"]}', /aggregation max is not valid for a counter metric/],
    ['{"catchup_completion_ms":["count<1"]}', /aggregation count is not valid for a trend metric/],
    ['{"catchup_nonexistent":["count<1"]}', /threshold on unknown metric catchup_nonexistent/],
  ])("refuses THRESHOLDS=%s before the run (config error, exit 104)", async (thresholds, message) => {
    const run = await runDouble("snapshot.js", { env: { URL: legacy.url, THRESHOLDS: thresholds } });
    expect(run.code).toBe(104);
    expect(run.stderr).toMatch(message);
  });

  it("gives each VU its own instance of every module", async () => {
    const path = script(
      'import { next } from "./counter.js";\nexport const options = { scenarios: { s: { executor: "per-vu-iterations", vus: 3, iterations: 1 } } };\nexport default function () { console.log("count " + next()); }\n',
      { "counter.js": "let n = 0;\nexport function next() { n += 1; return n; }\n" },
    );
    const run = await runDouble(path);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/count \d+/g)).toEqual(["count 1", "count 1", "count 1"]);
  });

  it("passes setup data to the VUs through JSON", async () => {
    const path = script(
      'export function setup() { return { when: new Date(0), fn: () => 1, n: 1 }; }\nexport default function (data) { console.log(["setup", typeof data.when, typeof data.fn, data.n].join(" ")); }\n',
    );
    const run = await runDouble(path);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/setup string undefined 1/);
  });

  it("does not create a summary file's directory, as k6 does not", async () => {
    const summary = join(work, "missing", "dir", "summary.json");
    const run = await runDouble("resume.js", { env: { URL: legacy.url, CASE: "none", SUMMARY: summary } });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/failed to handle the end-of-test summary: open .*no such file or directory/);
    expect(existsSync(summary)).toBe(false);
  });
});

describe("K6_NEW_MACHINE_READABLE_SUMMARY", () => {
  it("a script given another summary shape says so instead of writing 'did not run' rows", async () => {
    const summary = join(work, "new-format-summary.json");
    const run = await runDouble("resume.js", {
      env: { URL: legacy.url, CASE: "none", SUMMARY: summary },
      processEnv: { K6_NEW_MACHINE_READABLE_SUMMARY: "true" },
    });
    const body = JSON.parse(readFileSync(summary, "utf8"));
    expect(body.error).toMatch(/unrecognised k6 summary data.*K6_NEW_MACHINE_READABLE_SUMMARY/);
    expect(body.rows).toBeUndefined();
    expect(run.stdout).toMatch(/catchup resume: unrecognised k6 summary data/);
  });

  it("the k6 driver turns it off for the k6 it starts, so rows survive a parent that sets it", async () => {
    const result = await driverRun(writeFakeK6(work), legacy.url, {}, { K6_NEW_MACHINE_READABLE_SUMMARY: "true" });
    expect(result.rows.map((r) => r.ok)).toEqual([true, true]);
  });
});
