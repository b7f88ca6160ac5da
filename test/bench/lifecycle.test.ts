// Target lifecycle through the real CLI: foreign targets behind shell wrappers are sampled at the
// process that listens; a crashed target fails only its trial; Ctrl-C keeps finished rows and
// exits 130; SIGKILL of the harness leaves no target behind; bad targets get clear errors.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results, SampleLine } from "../../scripts/results/schema.js";
import { descendants } from "../../scripts/sampler/procfs.js";
import { killOnNewConnection, onlyListeningPort } from "../support/mid-trial.js";
import { sigkillAndWatch, slowTrialArgs } from "../support/orphans.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { cmdline, startBench, survivorsAfter } from "./bench-child.js";

let fixtures: TempFixtures | undefined;
let dir: string;
let fixture: string;
const SERVER = "dist/server-under-test/main.js";
/** A foreign target: the bundled server behind two shells (`; exit $?` keeps sh from exec'ing node). */
const wrapped = (delivery: string) => `sh -c 'node ${SERVER} --db {db} --port {port} --delivery ${delivery}; exit $?'`;

beforeAll(() => {
  fixtures = tempFixtures("bench-life");
  dir = fixtures.dir;
  // > 512 projects so legacy resume-many takes 4 chunks; small scripts keep it fast.
  fixture = fixtures.make("f", { projects: 520, scriptBytes: 256, events: 1000, seed: 1 });
});

afterAll(() => {
  fixtures?.cleanup();
});

const readResults = (out: string) => JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;

describe("foreign targets", () => {
  it("runs a wrapped command and samples the process that owns the listening socket", async () => {
    const out = join(dir, "foreign");
    const bench = startBench([
      "--target",
      `base=${wrapped("legacy")}`,
      "--target",
      `cand=${wrapped("batched")}`,
      "--fixture",
      fixture,
      "--cases",
      "resume-many",
      "--trials",
      "1",
      "--clients",
      "1",
      "--script-bytes",
      "1024",
      "--quick",
      "--fixtures-dir",
      join(dir, "fixtures"),
      "--out",
      out,
    ]);
    const { code } = await bench.exit(90_000);
    expect(code, bench.stderr()).toBe(0);
    const r = readResults(out);
    expect(r.variants.map((v) => [v.name, v.kind, v.role])).toEqual([
      ["base", "command", "baseline"],
      ["cand", "command", "candidate"],
    ]);
    expect(r.latency.map((l) => [l.variant, l.ok, l.chunks])).toEqual([
      ["base", true, 4],
      ["cand", true, 1],
    ]);
    expect(r.memory).toHaveLength(4);
    for (const m of r.memory) {
      expect(m.error).toBeNull();
      expect(typeof m.peakHeapBytes).toBe("number");
      expect(typeof m.postGcHeapBytes).toBe("number");
      // A shell's RSS is a few MiB; the Node server's is tens.
      expect(m.peakRssBytes as number).toBeGreaterThan(30 * 1024 * 1024);
      const baseline = readFileSync(join(out, m.samplesFile as string), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SampleLine & { command?: string; pid?: number })
        .find((l) => "phase" in l && l.phase === "baseline");
      expect(baseline?.command).toMatch(/^\S*node .*server-under-test\/main\.js/);
    }
  }, 100_000);

  it("reports a target that is reachable but not RPC, quickly and clearly", async () => {
    const bench = startBench([
      "--target",
      "junk=node test/bench/targets/not-rpc.mjs {port}",
      "--fixture",
      fixture,
      "--no-memory",
      "--out",
      join(dir, "junk"),
    ]);
    const { code } = await bench.exit(30_000);
    expect(code).toBe(3);
    expect(bench.stderr()).toMatch(/target junk at ws:\/\/127\.0\.0\.1:\d+\/ws did not complete a warm-up session/);
  });

  it("reports a target that never becomes ready, or dies first, with its stderr", async () => {
    const idle = startBench([
      "--target",
      "idle=sleep 30 # {port}",
      "--start-timeout-ms",
      "1500",
      "--fixture",
      fixture,
      "--no-memory",
      "--out",
      join(dir, "idle"),
    ]);
    const dies = startBench([
      "--target",
      "dies=echo boom >&2; exit 3 # {port}",
      "--fixture",
      fixture,
      "--no-memory",
      "--out",
      join(dir, "dies"),
    ]);
    expect((await idle.exit(20_000)).code).toBe(3);
    expect(idle.stderr()).toContain("target idle never became ready within 1500 ms");
    expect((await dies.exit(20_000)).code).toBe(3);
    expect(dies.stderr()).toMatch(/target dies exited before it was ready \(exit code 3\); last stderr lines:\s+boom/);
  });
});

/**
 * Runs 4 legacy resume-many trials and SIGKILLs the server mid-trial: once a trial's own connection
 * opens after trial 1 is done. That is trial 2's, or trial 3's when trial 2's was already open when
 * "[1/4]" was read; the long ACK delay keeps either in flight for seconds. Returns the bench.
 */
async function killServerMidTrial(out: string, extra: string[] = []) {
  const bench = startBench([...slowTrialArgs(fixture, out, 4), ...extra]);
  await bench.waitFor(/\[1\/4\]/, 60_000);
  const server = descendants(bench.pid).find((p) => /^\S*node .*server-under-test\/main\.js/.test(cmdline(p)));
  expect(server).toBeDefined();
  const killed = await killOnNewConnection(server as number, onlyListeningPort(server as number), 60_000);
  expect(killed, `no trial connected after trial 1; stderr:\n${bench.stderr()}`).toBe(true);
  return bench;
}

/** The one failed trial (2 or 3: the kill lands in the trial whose connection it saw open). */
function crashedTrial(r: Results): number {
  const failed = r.latency.filter((l) => !l.ok).map((l) => l.trial);
  expect(failed).toHaveLength(1);
  expect([2, 3]).toContain(failed[0]);
  return failed[0] as number;
}

describe("robustness", () => {
  it("fails only the trial whose target crashed, then goes on with a fresh server", async () => {
    const out = join(dir, "crash");
    const bench = await killServerMidTrial(out);
    const { code } = await bench.exit(90_000);
    // A crashed target is a finding: recorded, and the run has no trustworthy result (exit 3).
    expect(code, bench.stderr()).toBe(3);
    const r = readResults(out);
    const crashed = crashedTrial(r);
    expect(r.targetCrashes?.map((c) => [c.variant, c.signal, c.during])).toEqual([
      ["legacy", "SIGKILL", `during resume-many legacy trial ${crashed}`],
    ]);
    // Every other trial is ok: the ones after the crash ran on a fresh server.
    expect(r.latency.map((l) => [l.trial, l.ok])).toEqual([1, 2, 3, 4].map((t) => [t, t !== crashed]));
    expect(r.latency[crashed - 1]?.error).toMatch(/target legacy exited \(signal SIGKILL\)/);
  }, 240_000);

  it("with --fail-fast stops at the failed trial, keeps the rows and exits 3 (no result)", async () => {
    const out = join(dir, "fail-fast");
    const bench = await killServerMidTrial(out, ["--fail-fast"]);
    const { code } = await bench.exit(60_000);
    expect(code, bench.stderr()).toBe(3);
    const r = readResults(out);
    const crashed = crashedTrial(r);
    expect(bench.stderr()).toMatch(
      new RegExp(`--fail-fast: resume-many legacy trial ${crashed} failed: .*exited \\(signal SIGKILL\\)`),
    );
    expect(r.run.interrupted).toBe(true);
    expect(r.latency.map((l) => [l.trial, l.ok])).toEqual(
      Array.from({ length: crashed }, (_, i) => [i + 1, i + 1 !== crashed]),
    );
  }, 200_000);

  it("on SIGINT stops every target, keeps the finished rows and exits 130", async () => {
    const out = join(dir, "sigint");
    const bench = startBench([
      "--target",
      `base=${wrapped("legacy")}`,
      "--target",
      `cand=${wrapped("batched")}`,
      "--trials",
      "5",
      "--no-aa",
      "--fixture",
      fixture,
      "--no-memory",
      "--out",
      out,
    ]);
    await bench.waitFor(/\[3\/\d+\]/, 30_000);
    const tree = descendants(bench.pid);
    expect(tree.filter((p) => /^\S*node .*server-under-test\/main\.js/.test(cmdline(p)))).toHaveLength(2);
    bench.child.kill("SIGINT");
    const { code } = await bench.exit(20_000);
    expect(code, bench.stderr()).toBe(130);
    const r = readResults(out);
    expect(r.run.interrupted).toBe(true);
    expect(r.latency.length).toBeGreaterThanOrEqual(3);
    expect(r.latency.every((l) => l.ok)).toBe(true);
    // The journal holds the same rows (besides its run header and the stop record).
    const jsonl = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n");
    expect(jsonl.filter((l) => JSON.parse(l).kind === "latency")).toHaveLength(r.latency.length);
    expect(await survivorsAfter(tree, 2000)).toEqual([]);
  }, 60_000);

  it.each([
    ["foreign", ["--target", `base=${wrapped("legacy")}`]],
    ["bundled", ["--variants", "legacy,batched"]],
  ])(
    "leaves no %s target alive 2 s after the harness is SIGKILLed",
    async (_kind, targetArgs) => {
      const bench = startBench([
        ...targetArgs,
        "--trials",
        "20",
        "--fixture",
        fixture,
        "--no-memory",
        "--out",
        join(dir, `kill-${_kind}`),
      ]);
      await bench.waitFor(/\[1\/\d+\]/, 30_000);
      const tree = descendants(bench.pid);
      expect(tree.some((p) => cmdline(p).includes("server-under-test/main.js"))).toBe(true);
      const report = await sigkillAndWatch(bench.child, `bench (${_kind} target)`);
      expect(report.left).toEqual([]);
    },
    60_000,
  );
});
