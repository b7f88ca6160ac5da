// Harness faults: each injected fault gives a clear message, keeps finished rows in
// results.jsonl, leaves no process behind and ends in bounded time. The harness runs as the real
// compiled CLI; faulty targets are small foreign servers (targets/*.mjs) passed with --target.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants } from "../../scripts/sampler/procfs.js";
import { sigkillAndWatch } from "../support/orphans.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import {
  FAULTY,
  NEVER_READY,
  processesWith,
  rowsOf,
  runCli,
  SERVER_MAIN,
  startCli,
  waitUntil,
} from "./support/harness.js";

let fixtures: TempFixtures;
let dir: string;
let fixture: string;
let runs = 0;

beforeAll(() => {
  // Every target's command line names a path under `dir` (TMPDIR holds the harness's fixture copies),
  // so "no process left" is a scan of /proc for `dir`.
  fixtures = tempFixtures();
  dir = fixtures.dir;
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 1024, events: 30 });
});

afterAll(() => {
  if (dir) for (const p of processesWith(dir)) process.kill(p.pid, "SIGKILL");
  fixtures?.cleanup();
});

const env = () => ({ TMPDIR: dir });
const outDir = () => join(dir, `run-${++runs}`);
const good = () => `good=node ${SERVER_MAIN} --db {db} --port {port}`;
const faulty = (fault: string) => `bad=node ${FAULTY} --fault ${fault} --port {port} --marker ${dir}`;
const base = (out: string, trials = 2) => [
  "bench",
  "--no-memory",
  "--no-aa",
  "--cases",
  "snapshot",
  "--trials",
  String(trials),
  "--fixture",
  fixture,
  "--ack-delay-ms",
  "0",
  "--trial-timeout-ms",
  "2000",
  "--start-timeout-ms",
  "10000",
  "--out",
  out,
];

async function expectNoProcessLeft(): Promise<void> {
  const gone = await waitUntil(() => processesWith(dir).length === 0, 3_000);
  expect(gone, JSON.stringify(processesWith(dir))).toBe(true);
}

describe("a target that misbehaves mid-trial: that trial fails with a clear reason, the run goes on", () => {
  const cases: { fault: string; reason: RegExp }[] = [
    { fault: "sigkill", reason: /exited \((exit code 137|signal SIGKILL)\)/ },
    { fault: "no-marker", reason: /timed out|timeout/i },
    { fault: "close-mid-chunk", reason: /closed|1006|invalid/i },
    { fault: "defect", reason: /defect.*deliberate defect/i },
  ];
  for (const c of cases) {
    it(`${c.fault}: bad trials ok:false (${c.reason}), good trials kept, no process left`, async () => {
      const out = outDir();
      const r = await runCli([...base(out), "--target", good(), "--target", faulty(c.fault)], 60_000, env());
      expect(r.signal, r.stderr).toBeNull();
      // A target that died (sigkill) is recorded as a crash: no trustworthy result, exit 3.
      expect(r.code, r.stderr).toBe(c.fault === "sigkill" ? 3 : 0);
      const rows = rowsOf(join(out, "results.jsonl"));
      const goodRows = rows.filter((row) => row.variant === "good");
      const badRows = rows.filter((row) => row.variant === "bad");
      expect(goodRows.map((row) => row.ok)).toEqual([true, true]);
      expect(badRows.map((row) => row.ok)).toEqual([false, false]);
      for (const row of badRows) expect(String(row.error)).toMatch(c.reason);
      // results.json holds the same rows: nothing lost between the journal and the final file.
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { latency: unknown[] };
      expect(results.latency).toHaveLength(rows.length);
      // The failure is visible in the printed report too.
      expect(r.stdout).toMatch(/Failed trials/);
      expect(r.ms).toBeLessThan(45_000);
      await expectNoProcessLeft();
    });
  }
});

describe("harness-level faults", () => {
  it("a target that never becomes ready: exit 3, message names it with its stderr, bounded by --start-timeout-ms", async () => {
    const out = outDir();
    // 6 s: long enough for the target (a Node process) to start and print its line on a loaded
    // machine, so the message can carry it; far below the 10 s the other tests allow.
    const args = base(out).map((a) => (a === "10000" ? "6000" : a));
    // The never-ready target first: the good one's own start (seconds on a loaded machine) is not under test.
    const r = await runCli(
      [...args, "--target", `bad=node ${NEVER_READY} --port {port} --marker ${dir}`, "--target", good()],
      30_000,
      env(),
    );
    expect(r.code).toBe(3);
    // The first line after the run's expected length (and what pace it assumes, for foreign targets).
    const [expected, pace, first] = r.stderr.split("\n");
    expect(expected).toMatch(/^catchup-bench: expected run time /);
    expect(pace).toMatch(/that estimate is the bundled server's pace/);
    expect(first).toMatch(/target bad never became ready within 6000 ms/);
    expect(r.stderr).toContain("loading a very large model");
    expect(existsSync(join(out, "results.json"))).toBe(true);
    expect(r.ms).toBeLessThan(20_000);
    await expectNoProcessLeft();
  });

  it("an out directory that cannot be written: exit 2, one line naming --out, nothing created, nothing started", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    for (const out of [join(file, "run"), "/proc/catchup-bench-not-here/run"]) {
      const r = await runCli([...base(out), "--target", good()], 20_000, env());
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/--out must be a writable directory/);
      expect(r.stderr).toContain(out);
      expect(existsSync(out)).toBe(false);
    }
    await expectNoProcessLeft();
  });

  async function startLongRun(out: string, targets: string[]) {
    // Long enough to be interrupted: many trials with a real ACK delay.
    const args = base(out, 60).map((a, i, all) => (all[i - 1] === "--ack-delay-ms" ? "100" : a));
    const run = startCli([...args, ...targets], env());
    const jsonl = join(out, "results.jsonl");
    const started = await waitUntil(() => rowsOf(jsonl).length >= 2 || run.child.exitCode !== null, 30_000);
    expect(started, run.stderr()).toBe(true);
    expect(run.child.exitCode, run.stderr()).toBeNull();
    return { run, jsonl };
  }

  it("SIGINT: targets stopped, finished rows kept in results.jsonl and results.json, exit 130", async () => {
    const out = outDir();
    const { run, jsonl } = await startLongRun(out, []);
    run.child.kill("SIGINT");
    const exit = await run.exited;
    expect(exit.code).toBe(130);
    const rows = rowsOf(jsonl);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((row) => row.ok === true)).toBe(true);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { latency: unknown[] };
    expect(results.latency).toHaveLength(rows.length);
    await expectNoProcessLeft();
  });

  it("SIGINT then SIGTERM: exits 130 at once, finished rows kept, no process left", async () => {
    const out = outDir();
    const { run, jsonl } = await startLongRun(out, ["--target", good(), "--target", faulty("none")]);
    run.child.kill("SIGINT");
    // Two signals sent back to back may be handled in either order (any thread of the process can
    // take a process-directed signal), so the second is sent once the harness has taken the first.
    const heard = await waitUntil(() => run.stderr().includes("SIGINT: stopping targets"), 20_000);
    expect(heard, run.stderr()).toBe(true);
    run.child.kill("SIGTERM");
    const exit = await run.exited;
    expect(exit.code).toBe(130);
    expect(exit.ms).toBeLessThan(60_000);
    expect(rowsOf(jsonl).length).toBeGreaterThanOrEqual(2);
    await expectNoProcessLeft();
  });

  for (const kind of ["bundled", "foreign"] as const) {
    it(`SIGKILL of the harness: every ${kind} target (and reaper) is gone within 2 s; finished rows kept`, async () => {
      const out = outDir();
      const targets = kind === "bundled" ? [] : ["--target", good(), "--target", faulty("none")];
      const { run, jsonl } = await startLongRun(out, targets);
      const pid = run.child.pid as number;
      const family = descendants(pid);
      expect(family.length).toBeGreaterThanOrEqual(2);
      const rowsBefore = rowsOf(jsonl).length;
      // The bound: no target survives the harness by more than 2 seconds.
      const report = await sigkillAndWatch(run.child, `bench (${kind} targets, faults)`);
      expect(report.left).toEqual([]);
      expect(rowsOf(jsonl).length).toBeGreaterThanOrEqual(rowsBefore);
      await expectNoProcessLeft();
    });
  }
});
