// The k6 double (a TEST AID: k6 cannot be installed here) refuses what real k6 refuses, with k6's exit
// code and a message naming the rule, and is no stricter than k6 where k6 lets a script through. Each
// case names the grafana/k6 source it copies in test/k6-double/. Run against an older copy of the
// double with CATCHUP_K6_DOUBLE_DIR to see these fail there.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { runDouble } from "./support.js";

let work: string;
let wss: WebSocketServer;
let wsUrl: string;
/** Per connection: its Authorization header and the close code the server received. */
const seen: Array<{ auth: string | undefined; closeCode?: number }> = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "catchup-k6-refusals-"));
  wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (ws, req) => {
    const entry: { auth: string | undefined; closeCode?: number } = { auth: req.headers.authorization };
    seen.push(entry);
    ws.on("close", (code) => {
      entry.closeCode = code;
    });
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  wsUrl = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`;
});

afterAll(async () => {
  await new Promise((resolve) => wss.close(resolve));
  if (work) rmSync(work, { recursive: true, force: true });
});

let n = 0;
/** A throwaway script (outside scenarios/), with optional files beside it. */
function script(source: string, files: Record<string, string> = {}): string {
  const dir = join(work, `s${n++}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, "script.js"), source);
  return join(dir, "script.js");
}

describe("what k6 refuses, the double refuses", () => {
  it("exec.test.abort(): exit 108, 'test aborted: REASON'", async () => {
    const run = await runDouble(
      script('import exec from "k6/execution";\nexport default function () { exec.test.abort("enough"); }\n'),
    );
    expect(run.stderr).toMatch(/test aborted: enough/);
    expect(run.code).toBe(108);
  });

  it("a metric's add() in the init context: script error, exit 107", async () => {
    const run = await runDouble(
      script(
        'import { Counter } from "k6/metrics";\nconst c = new Counter("early");\nc.add(1);\nexport default function () {}\n',
      ),
    );
    expect(run.stderr).toMatch(/Adding to metrics in the init context is not supported/);
    expect(run.code).toBe(107);
  });

  it("a metric created in setup(): script error, exit 107", async () => {
    const run = await runDouble(
      script(
        'import { Counter } from "k6/metrics";\nexport function setup() { new Counter("late"); }\nexport default function () {}\n',
      ),
    );
    expect(run.stderr).toMatch(/metrics must be declared in the init context/);
    expect(run.code).toBe(107);
  });

  it("a WebSocket param k6 does not know (`header`) throws; nothing connects without the header", async () => {
    const before = seen.length;
    const run = await runDouble(
      script(`import { WebSocket } from "k6/websockets";
export default function () {
  const ws = new WebSocket(${JSON.stringify(wsUrl)}, null, { header: { Authorization: "Bearer t" } });
  ws.onopen = () => ws.close();
}
`),
    );
    expect(run.stderr).toMatch(/unknown WebSocket's option header/);
    expect(seen.slice(before)).toEqual([]);
  });

  it("a WebSocket created in the init context: k6 panics, exit 109", async () => {
    const run = await runDouble(
      script(
        `import { WebSocket } from "k6/websockets";\nconst ws = new WebSocket(${JSON.stringify(wsUrl)});\nws.onopen = () => ws.close();\nexport default function () {}\n`,
      ),
    );
    expect(run.stderr).toMatch(/unexpected k6 panic: a WebSocket created in the init context/);
    expect(run.code).toBe(109);
  });

  it("a scenario's exec naming a missing function: config error, exit 104", async () => {
    const run = await runDouble(
      script(
        'export const options = { scenarios: { s: { executor: "per-vu-iterations", vus: 1, iterations: 1, exec: "nope" } } };\nexport default function () {}\n',
      ),
    );
    expect(run.stderr).toMatch(/executor s: function 'nope' not found in exports/);
    expect(run.code).toBe(104);
  });

  it("no default export for the default exec: config error, exit 104", async () => {
    const run = await runDouble(script("export function other() {}\n"));
    expect(run.stderr).toMatch(/executor default: function 'default' not found in exports/);
    expect(run.code).toBe(104);
  });

  it("a bad summaryTrendStats entry: config error, exit 104", async () => {
    const run = await runDouble(
      script('export const options = { summaryTrendStats: ["avg", "p95"] };\nexport default function () {}\n'),
    );
    expect(run.stderr).toMatch(/invalid trend stat 'p95', unknown format/);
    expect(run.code).toBe(104);
  });

  it("a node: import from a script outside scenarios/: refused, exit 107", async () => {
    const run = await runDouble(script('import { readFileSync } from "node:fs";\nexport default function () {}\n'));
    expect(run.stderr).toMatch(/imports "node:fs": k6 resolves only k6\/\* modules and relative paths/);
    expect(run.code).toBe(107);
  });

  it.each([
    ["Buffer", 'Buffer.from("x")'],
    ["process", "process.env.HOME"],
    ["structuredClone", "structuredClone({})"],
  ])("the Node global %s is not defined for a script (also in its modules)", async (name, use) => {
    const run = await runDouble(
      script('import { use } from "./lib.js";\nexport default function () { use(); }\n', {
        "lib.js": `export function use() { return ${use}; }\n`,
      }),
    );
    expect(run.stderr).toMatch(new RegExp(`ReferenceError: ${name} is not defined`));
  });
});

describe("where k6 lets a script through, the double does too", () => {
  it("close() while CONNECTING: once the dial succeeds the socket closes (1000), no open event, exit 0", async () => {
    const before = seen.length;
    const run = await runDouble(
      script(`import { WebSocket } from "k6/websockets";
export default function () {
  const ws = new WebSocket(${JSON.stringify(wsUrl)});
  ws.onopen = () => console.log("opened");
  ws.onclose = (e) => console.log("closed " + e.code);
  ws.close();
}
`),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/closed 1000/);
    expect(run.stdout).not.toMatch(/opened/);
    expect(seen.slice(before).map((c) => c.closeCode)).toEqual([1000]);
  });

  it("a handleSummary that throws is logged and the run goes on (exit 0, not 107)", async () => {
    const run = await runDouble(
      script('export default function () {}\nexport function handleSummary() { throw new Error("summary broke"); }\n'),
    );
    expect(run.stderr).toMatch(/failed to handle the end-of-test summary: summary broke/);
    expect(run.code).toBe(0);
  });

  it("open() reads a file in the init context (and only there)", async () => {
    const run = await runDouble(
      script(
        'const text = open("./data.txt");\nexport default function () { console.log("read " + text.trim()); try { open("./data.txt"); } catch (e) { console.log("later: " + e.message); } }\n',
        { "data.txt": "payload\n" },
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/read payload/);
    expect(run.stdout).toMatch(/later: the "open" function is only available in the init stage/);
  });

  it("require() gives a k6 module in the init context", async () => {
    const run = await runDouble(
      script(
        'const { Counter } = require("k6/metrics");\nconst c = new Counter("required");\nexport default function () { console.log("added " + c.add(1)); }\n',
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/added true/);
  });

  it('add("5") counts 5, as k6 converts the value; add("x") warns and drops it', async () => {
    const run = await runDouble(
      script(`import { Counter } from "k6/metrics";
const c = new Counter("converted");
export default function () { c.add("5"); console.log("dropped " + !c.add("x")); }
export function handleSummary(data) { return { stdout: "count " + data.metrics.converted.values.count + "\\n" }; }
`),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/count 5\b/);
    expect(run.stdout).toMatch(/dropped true/);
    expect(run.stderr).toMatch(/'x' is an invalid value for metric 'converted'/);
  });
});
