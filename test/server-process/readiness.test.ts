// Readiness as a real server needs it, through the real CLI: a target whose port opens before it
// answers WebSocket upgrades is measured without a wrapper (warm-up retried with backoff, each
// attempt with its own connect timeout); one that never answers fails within the start timeout
// saying what happened; --ready-line waits for a log line; Ctrl-C while a target starts stops at once.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { descendants, isAlive } from "../../scripts/sampler/procfs.js";
import { startBench } from "../bench/bench-child.js";
import { NEVER_READY, waitUntil } from "../hardening/support/harness.js";
import { cmdline } from "../support/orphans.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const SLOW = "test/server-process/targets/slow-upgrade.mjs";
let fixtures: TempFixtures;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-readiness");
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 128, events: 30, seed: 4 });
});
afterAll(() => fixtures.cleanup());

const run = (name: string, target: string, extra: string[]) =>
  startBench([
    "--target",
    `${name}=${target}`,
    "--fixture",
    fixture,
    "--cases",
    "snapshot",
    "--trials",
    "2",
    "--no-memory",
    "--trial-timeout-ms",
    "20000",
    "--out",
    join(fixtures.dir, name),
    ...extra,
  ]);

const results = (name: string) => JSON.parse(readFileSync(join(fixtures.dir, name, "results.json"), "utf8")) as Results;

describe("a target that opens its port before it answers upgrades", () => {
  it("is measured without a wrapper: the warm-up is retried until the server answers", async () => {
    const bench = run("slow", `node ${SLOW} --port {port} --upgrade-after-ms 500`, []);
    const { code } = await bench.exit(60_000);
    expect(code, bench.stderr()).toBe(0);
    expect(results("slow").latency.map((r) => [r.variant, r.ok])).toEqual([
      ["slow", true],
      ["slow", true],
    ]);
  }, 70_000);

  it("also in memory cells (ready once it upgrades a WebSocket)", async () => {
    const bench = startBench([
      "--target",
      `slowmem=node ${SLOW} --port {port} --upgrade-after-ms 500`,
      "--no-latency",
      "--quick",
      "--clients",
      "1",
      "--fixtures-dir",
      join(fixtures.dir, "fixtures"),
      "--out",
      join(fixtures.dir, "slowmem"),
    ]);
    const { code } = await bench.exit(90_000);
    expect(code, bench.stderr()).toBe(0);
    const rows = results("slowmem").memory;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect([r.ok, r.error]).toEqual([true, null]);
  }, 100_000);

  it("one that never answers fails within the start timeout, saying it connected and was never upgraded", async () => {
    // 10 s: the target's own start (a Node process opening its port) fits in it on a loaded machine,
    // so what is reported is the unanswered upgrade, not a port that never opened.
    const bench = run("never", `node ${SLOW} --port {port} --never`, ["--start-timeout-ms", "10000"]);
    const { code } = await bench.exit(40_000);
    expect(code).toBe(3);
    const err = bench.stderr();
    expect(err).toMatch(
      /target never at ws:\/\/127\.0\.0\.1:\d+\/ws did not complete a warm-up session within its start timeout \(\d+ attempts in \d+ ms of 10000\): connected, but the WebSocket upgrade was not answered within \d+ ms/,
    );
    // The tag was right: no hint about it.
    expect(err).not.toMatch(/subscribe-tag/);
  }, 50_000);

  it("an unknown subscribe tag is named as such, with the flag that fixes it", async () => {
    const bench = run("tag", `node ${SLOW} --port {port} --upgrade-after-ms 0`, ["--subscribe-tag", "shell.watch"]);
    const { code } = await bench.exit(30_000);
    expect(code).toBe(3);
    expect(bench.stderr()).toMatch(
      /connected and upgraded; the warm-up session \(shell\.watch\) failed: server defect: Unknown request tag: shell\.watch; the server does not know shell\.watch: pass its tag with --subscribe-tag/,
    );
  }, 40_000);
});

describe("--ready-line", () => {
  it("waits for a line of the server's output and takes the port from its (?<port>) group", async () => {
    // --port 0: the target picks its own port and prints it on stderr; no {port} in the command.
    const bench = run("line", `node ${SLOW} --port 0 --upgrade-after-ms 0`, [
      "--ready-line",
      "listening on (?<port>\\d+)",
    ]);
    const { code } = await bench.exit(60_000);
    expect(code, bench.stderr()).toBe(0);
    expect(results("line").latency.every((r) => r.ok)).toBe(true);
  }, 70_000);

  it("a line that never comes: not ready within the start timeout, naming the pattern", async () => {
    const bench = run("noline", `node ${SLOW} --port {port}`, [
      "--ready-line",
      "^READY$",
      "--start-timeout-ms",
      "1500",
    ]);
    const { code } = await bench.exit(30_000);
    expect(code).toBe(3);
    expect(bench.stderr()).toMatch(
      /target noline never became ready within 1500 ms \(no line matching --ready-line \/\^READY\$\/ on stdout or stderr\)/,
    );
  }, 40_000);
});

describe("Ctrl-C while a foreign target is starting", () => {
  it("stops at once, not at the start timeout, exits 130 and leaves nothing running", async () => {
    const bench = run("starting", `node ${NEVER_READY} --port {port}`, ["--start-timeout-ms", "600000"]);
    const starting = await waitUntil(
      // The target itself, with its port filled in: a child forked by the bench (git, the reaper)
      // shows the bench's own command line, "--port {port}" included, until it execs.
      () => descendants(bench.pid).some((p) => /never-ready\.mjs --port \d+/.test(cmdline(p))),
      30_000,
    );
    expect(starting, bench.stderr()).toBe(true);
    const tree = descendants(bench.pid);
    bench.child.kill("SIGINT");
    // Far below the 600 s start timeout: the harness no longer waits for it.
    const { code } = await bench.exit(20_000);
    expect(code, bench.stderr()).toBe(130);
    expect(bench.stderr()).not.toMatch(/never became ready/);
    const gone = await waitUntil(() => !tree.some(isAlive), 2000);
    expect(gone, tree.map((p) => `${p} ${cmdline(p)}`).join("\n")).toBe(true);
  }, 60_000);
});
