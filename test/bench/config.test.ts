// Flag validation: every bad flag is a one-line usage error naming the flag (pure), and the CLI
// turns it into exit code 2 (child processes of the compiled CLI).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LATENCY_CASES, THREAD_CASES } from "../../scenarios/lib/protocol.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { UsageError } from "../../scripts/util/usage.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));

// [flags, the flag the message must name]; each must be rejected.
const BAD: [Record<string, unknown>, string][] = [
  [{ cases: "snapshot,bogus" }, "--cases"],
  [{ cases: "" }, "--cases"],
  [{ trials: "0" }, "--trials"],
  [{ trials: "2.5" }, "--trials"],
  [{ "memory-trials": "0" }, "--memory-trials"],
  [{ "ack-delay-ms": "-1" }, "--ack-delay-ms"],
  [{ "hold-ms": "x" }, "--hold-ms"],
  [{ clients: "1,,4" }, "--clients"],
  [{ clients: "0" }, "--clients"],
  [{ "script-bytes": "10" }, "--script-bytes"],
  [{ "sample-interval-ms": "0" }, "--sample-interval-ms"],
  [{ driver: "jmeter" }, "--driver"],
  [{ seed: "-3" }, "--seed"],
  [{ variants: "legacy,fast" }, "--variants"],
  [{ variants: "legacy,legacy" }, "--variants"],
  [{ target: "noequals" }, "--target"],
  [{ target: ["a=x", "a=y"] }, "--target"],
  [{ target: "a=x", variants: "legacy" }, "--target"],
  [{ "url-path": "ws" }, "--url-path"],
  [{ "subscribe-payload": "{not json" }, "--subscribe-payload"],
  [{ "subscribe-payload": "[{after}]" }, "--subscribe-payload"],
  [{ completion: "kind" }, "--completion"],
  [{ "probe-payload": "{" }, "--probe-payload"],
  [{ ceiling: "0" }, "--ceiling"],
  [{ guard: "completionMs" }, "--guard"],
  [{ guard: "speed", ceiling: "1.03" }, "--guard"],
  [{ "auto-sample": "30" }, "--auto-sample"],
  [{ "auto-sample": "0", ceiling: "1.03" }, "--auto-sample"],
  [{ memory: false, latency: false }, "--no-memory"],
  [{ token: "" }, "--token"],
  [{ "server-arg": "--db=x.sqlite" }, "--server-arg"],
  [{ "server-arg": ["--delivery", "batched"] }, "--server-arg"],
  [{ "server-arg": "--no-exit-with-parent" }, "--server-arg"],
  [{ "server-arg": "-x" }, "--server-arg"],
  [{ "server-arg": "--backlog=8", target: "a=x" }, "--server-arg"],
];

describe("resolveConfig", () => {
  it("has the issue's defaults", () => {
    const c = resolveConfig({});
    // every case, the thread subscription's included
    expect(c.latency.cases).toEqual(LATENCY_CASES);
    expect(c.latency.cases).toEqual(expect.arrayContaining([...THREAD_CASES]));
    // Interleaved rounds: 8 latency rounds and 3 memory rounds give each cell enough paired ratios.
    expect(c.latency.trials).toBe(8);
    expect(c.memory.trials).toBe(3);
    expect(c.protocol.ackDelayMs).toBe(100);
    expect(c.protocol.holdMs).toBe(100);
    expect(c.memory.clients).toEqual([1, 4]);
    expect(c.memory.scriptBytes).toEqual([1024, 8192]);
    expect(c.memory.sampleIntervalMs).toBe(10);
    expect(c.targets.targets.map((t) => t.name)).toEqual(["legacy", "batched"]);
    expect(c.protocol.completion).toEqual({ field: "kind", value: "synchronized" });
    expect(c.protocol.probeTag).toBe("server.getConfig");
    expect(c.protocol.urlPath).toBe("/ws");
    expect(c.fixtures.projects).toBe(1000);
    expect(c.fixtures.events).toBe(1000);
    expect(c.guard).toBeNull();
  });

  it("leaves the thread cases out for a --target run unless --cases names them", () => {
    const target = "base=node a.js --port {port}";
    expect(resolveConfig({ target }).latency.cases).toEqual(["snapshot", "resume-none", "resume-one", "resume-many"]);
    expect(resolveConfig({ target, cases: "snapshot,thread-resume" }).latency.cases).toEqual([
      "snapshot",
      "thread-resume",
    ]);
  });

  it("--quick shrinks projects, trials and cells but keeps 1,000 events; explicit flags win", () => {
    const q = resolveConfig({ quick: true });
    expect([q.fixtures.projects, q.fixtures.events, q.latency.trials, q.memory.scriptBytes]).toEqual([
      600,
      1000,
      1,
      [1024],
    ]);
    expect(resolveConfig({ quick: true, trials: "2" }).latency.trials).toBe(2);
  });

  it("guards the headline figure of each matrix that runs unless --guard names metrics", () => {
    expect(resolveConfig({ ceiling: "1.03" }).guardMetrics).toEqual(["completionMs", "peakHeapBytes"]);
    expect(resolveConfig({ ceiling: "1.03", memory: false }).guardMetrics).toEqual(["completionMs"]);
    expect(resolveConfig({ ceiling: "1.03", latency: false }).guardMetrics).toEqual(["peakHeapBytes"]);
    expect(resolveConfig({ ceiling: "1.03", guard: "probeMs,retainedHeapBytes" }).guardMetrics).toEqual([
      "probeMs",
      "retainedHeapBytes",
    ]);
  });

  it("parses lists, repeated targets and the completion rule", () => {
    const c = resolveConfig({
      clients: ["1,2", "8"],
      target: ["base=node a.js --port {port}", "cand=node b.js --port {port}"],
      completion: "exit",
      "probe-payload": '{"x":1}',
    });
    expect(c.memory.clients).toEqual([1, 2, 8]);
    expect(c.targets.targets).toEqual([
      { name: "base", kind: "command", command: "node a.js --port {port}" },
      { name: "cand", kind: "command", command: "node b.js --port {port}" },
    ]);
    expect(c.protocol.completion).toBe("exit");
    expect(c.protocol.probePayload).toEqual({ x: 1 });
    expect(resolveConfig({ completion: "status=done" }).protocol.completion).toEqual({
      field: "status",
      value: "done",
    });
  });

  it("gives every bundled variant the --server-arg words, after its own flags", () => {
    const c = resolveConfig({ "server-arg": ["--backlog=1024", "--replay-group-items", "64"] });
    expect(c.targets.targets).toEqual([
      {
        name: "legacy",
        kind: "bundled",
        delivery: "legacy",
        serverArgs: ["--backlog=1024", "--replay-group-items", "64"],
      },
      {
        name: "batched",
        kind: "bundled",
        delivery: "batched",
        serverArgs: ["--backlog=1024", "--replay-group-items", "64"],
      },
    ]);
  });

  it.each(BAD)("rejects %j naming the flag", (flags, flag) => {
    let error: unknown;
    try {
      resolveConfig(flags);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(flag);
    expect((error as Error).message).not.toContain("\n");
  });
});

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env },
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`catchup-bench ${args.join(" ")} did not exit within 20 s`));
    }, 20_000);
    // "close", not "exit": the last stderr chunk can arrive after the exit event.
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("bench CLI usage errors", () => {
  const cases: [string[], string][] = [
    [["--cases", "bogus"], "--cases"],
    [["--trials", "0"], "--trials"],
    [["--memory-trials", "x"], "--memory-trials"],
    [["--ack-delay-ms", "x"], "--ack-delay-ms"],
    [["--hold-ms", "-5"], "--hold-ms"],
    [["--clients", "0"], "--clients"],
    [["--script-bytes", "1"], "--script-bytes"],
    [["--sample-interval-ms", "0"], "--sample-interval-ms"],
    [["--driver", "jmeter"], "--driver"],
    [["--seed", "x"], "--seed"],
    [["--variants", "fast"], "--variants"],
    [["--target", "nocommand"], "--target"],
    [["--url-path", "ws"], "--url-path"],
    [["--subscribe-payload", "{"], "--subscribe-payload"],
    [["--completion", "x"], "--completion"],
    [["--probe-payload", "{"], "--probe-payload"],
    [["--ceiling", "-1"], "--ceiling"],
    [["--guard", "bogus", "--ceiling", "1.03"], "--guard"],
    [["--no-memory", "--no-latency"], "--no-memory"],
    [["--bogus-flag"], "bogus-flag"],
    [["--fixture", "/nonexistent/fixture.sqlite", "--no-memory"], "/nonexistent/fixture.sqlite"],
    [["--fixture", "package.json", "--no-memory"], "not a SQLite file"],
    // Names and values of --server-arg are the bundled server's to judge (run with --check-flags).
    [["--server-arg=--backlog=0"], "--backlog must be an integer from 1 to 65535"],
    [["--server-arg=--bogus"], "--server-arg: the bundled server refused --bogus: Unknown argument: bogus"],
  ];
  it("exits 2 with a one-line message naming the flag, for every flag", async () => {
    // Four at a time: a shared 2-core machine should not turn this into a start-up race.
    const outcomes: { code: number | null; stderr: string }[] = [];
    for (let i = 0; i < cases.length; i += 4) {
      outcomes.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => runCli(["bench", ...args])))));
    }
    for (const [i, [args, flag]] of cases.entries()) {
      const o = outcomes[i] as { code: number | null; stderr: string };
      expect({ args, code: o.code, stderr: o.stderr }).toEqual({
        args,
        code: 2,
        stderr: expect.stringContaining(flag),
      });
      expect(o.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("refuses --driver k6 without k6 on PATH, before running anything (exit 3: no result)", async () => {
    const o = await runCli(["bench", "--driver", "k6", "--no-memory"], { PATH: "/nonexistent" });
    expect(o.code).toBe(3);
    expect(o.stderr).toContain("k6 not found on PATH; install k6 >= 1.6 or use --driver node");
  });
});
