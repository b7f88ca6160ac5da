// The k6 double (a TEST AID: k6 cannot be installed here) behaves as k6 does where our scripts could
// get it wrong; each rule names the k6 source it copies in test/k6-double/: send() outside OPEN
// throws InvalidStateError; after a failed dial or a TCP drop the close event has no `code`; a
// server's close other than 1000/1001 comes with an error event; a throwing listener fails its
// iteration; --execution-segment runs the striped share (VUs 1, 5, ... of a quarter); setup() runs
// once per instance (per k6-operator runner); K6_* in the environment applies as k6 applies it;
// an archive's options are frozen when it is made.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { runDouble } from "./support.js";

let work: string;
let wss: WebSocketServer;
let wsUrl: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "catchup-k6-rules-"));
  // /drop: the TCP connection ends without a close frame; /close1011: a server close with an error code.
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (ws, req) => {
    if (req.url === "/drop") ws.terminate();
    else if (req.url === "/close1011") ws.close(1011, "boom");
    else ws.send("hello");
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  wsUrl = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => wss.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

let n = 0;
function script(source: string): string {
  const dir = join(work, `s${n++}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "script.js");
  writeFileSync(path, source);
  return path;
}

/** A loopback port with nothing listening: a dial there is refused. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const LOG_EVENTS = `
  ws.addEventListener("error", (e) => console.log("error: " + e.error));
  ws.addEventListener("close", (e) => console.log("close: code " + ("code" in e ? e.code : "absent")));`;

describe("k6/websockets in the double", () => {
  it("send() while CONNECTING throws InvalidStateError; a refused dial: error with k6's text, close without code", async () => {
    const port = await refusedPort();
    const path = script(`import { WebSocket } from "k6/websockets";
export default function () {
  const ws = new WebSocket("ws://127.0.0.1:${port}/ws");
  try { ws.send("x"); } catch (e) { console.log("send threw " + e.message); }${LOG_EVENTS}
}
`);
    const run = await runDouble(path);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/send threw InvalidStateError/);
    expect(run.stdout).toMatch(new RegExp(`error: dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`));
    expect(run.stdout).toMatch(/close: code absent/);
  });

  it("a TCP drop gives a close without code and no error; a 1011 close gives an error, then the code", async () => {
    const path = script(`import { WebSocket } from "k6/websockets";
export const options = { scenarios: { s: { executor: "shared-iterations", vus: 1, iterations: 2 } } };
import exec from "k6/execution";
export default function () {
  const ws = new WebSocket("${wsUrl}" + (exec.scenario.iterationInTest === 0 ? "/drop" : "/close1011"));${LOG_EVENTS}
}
`);
    const run = await runDouble(path);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split("\n").filter((l) => /^(error|close):/.test(l));
    expect(lines).toEqual([
      "close: code absent",
      "error: websocket: close 1011 (internal server error): boom",
      "close: code 1011",
    ]);
  });

  it("a listener that throws fails its iteration; the next iteration runs", async () => {
    const path = script(`import { WebSocket } from "k6/websockets";
export const options = { scenarios: { s: { executor: "per-vu-iterations", vus: 1, iterations: 2 } } };
import exec from "k6/execution";
export default function () {
  const i = exec.scenario.iterationInTest;
  console.log("iteration " + i + " started");
  const ws = new WebSocket("${wsUrl}/");
  ws.addEventListener("message", () => { throw new Error("listener failed in iteration " + i); });
}
`);
    const run = await runDouble(path);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/iteration error: Error: listener failed in iteration 0/);
    expect(run.stderr).toMatch(/iteration error: Error: listener failed in iteration 1/);
    expect(run.stdout).toMatch(/iteration 1 started/);
  });
});

describe("execution segments and setup, as k6-operator's runners see them", () => {
  const source = `import exec from "k6/execution";
export const options = { scenarios: { s: { executor: "per-vu-iterations", vus: 8, iterations: 1 } } };
export function setup() { console.log("setup ran"); return {}; }
export default function () { console.log("vu " + exec.vu.idInTest + " iteration " + exec.scenario.iterationInTest); }
`;

  it.each([
    ["0:1/4", [1, 5], [0, 4]],
    ["1/4:1/2", [2, 6], [1, 5]],
    ["3/4:1", [4, 8], [3, 7]],
  ])(
    "segment %s of four runs VUs %j (striped over the test), iterations %j, and its own setup()",
    async (segment, vus, iterations) => {
      const run = await runDouble(script(source), {
        args: ["--execution-segment", segment, "--execution-segment-sequence", "0,1/4,1/2,3/4,1"],
      });
      expect(run.code, run.stderr).toBe(0);
      const seen = [...run.stdout.matchAll(/vu (\d+) iteration (\d+)/g)];
      expect(seen.map((m) => Number(m[1])).sort((a, b) => a - b)).toEqual(vus);
      expect(seen.map((m) => Number(m[2])).sort((a, b) => a - b)).toEqual(iterations);
      expect(run.stdout.match(/setup ran/g)).toHaveLength(1);
    },
  );
});

describe("options as k6 consolidates them", () => {
  const source = `import exec from "k6/execution";
export const options = { vus: Number(__ENV.N ?? 1), scenarios: { s: { executor: "per-vu-iterations", vus: Number(__ENV.N ?? 1), iterations: 1 } } };
export function handleSummary() { return { stdout: "handleSummary ran\\n" }; }
export default function () { console.log("ran " + exec.scenario.executor + " n=" + __ENV.N); }
`;

  it("K6_ITERATIONS in the environment replaces the script's scenarios (shared-iterations)", async () => {
    const run = await runDouble(script(source), { env: { N: "2" }, processEnv: { K6_ITERATIONS: "3" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.match(/ran shared-iterations n=2/g)).toHaveLength(3);
  });

  it("K6_SUMMARY_MODE=disabled skips handleSummary", async () => {
    const run = await runDouble(script(source), { processEnv: { K6_SUMMARY_MODE: "disabled" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/ran per-vu-iterations/);
    expect(run.stdout).not.toMatch(/handleSummary ran/);
  });

  it("an archive keeps the options it was made with; the run's -e reaches __ENV only", async () => {
    const path = script(source);
    const tar = join(work, "frozen.tar");
    const made = await runDouble(path, { command: "archive", env: { N: "2" }, args: ["-O", tar] });
    expect(made.code, made.stderr).toBe(0);
    const run = await runDouble(tar, { env: { N: "5" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.match(/ran per-vu-iterations n=5/g)).toHaveLength(2);
  });
});
