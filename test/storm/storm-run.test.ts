// A small storm end to end: the compiled CLI, the bundled server (both variants), real sockets. Each
// variant's row accounts for every client (ok + failed = N), its completion distribution is ordered
// and within the storm's own span, and its samples file carries one caught-up point per ok client.
// The limit check refuses a storm above the harness's descriptor limit before anything starts.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { ROOT, startBench } from "../bench/bench-child.js";

const N = 12;
let dir: string;
let results: Results;
let runDir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "storm-run-"));
  runDir = join(dir, "run");
  const child = startBench([
    "--quick",
    "--no-latency",
    "--no-memory",
    "--storm",
    String(N),
    "--storm-resume-ratio",
    "0.5",
    "--script-bytes",
    "64",
    "--ack-delay-ms",
    "10",
    "--fixtures-dir",
    join(dir, "fixtures"),
    "--out",
    runDir,
  ]);
  const { code } = await child.exit(170_000);
  expect(code, child.stderr()).toBe(0);
  expect(child.stderr()).toMatch(/storm limits: harness fd limit \d+/);
  results = JSON.parse(readFileSync(join(runDir, "results.json"), "utf8")) as Results;
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a storm of N clients", () => {
  it("has one row per variant, every client accounted for", () => {
    const rows = results.storm ?? [];
    expect(rows.map((r) => r.variant).sort()).toEqual(["batched", "legacy"]);
    for (const r of rows) {
      expect(r.clients).toBe(N);
      expect(r.ok + r.failed).toBe(N);
      expect(Object.values(r.failures).reduce((a, b) => a + b, 0)).toBe(r.failed);
      expect(r.ok, r.error ?? "").toBe(N);
      expect(r.resumeRatio).toBe(0.5);
      // The storm's own deadline, not --trial-timeout-ms (bench/storm/storm-cells.ts stormSessionSpec).
      expect(r.sessionTimeoutMs).toBe(300_000);
    }
  });

  it("orders the completion distribution inside the storm's own span", () => {
    for (const r of results.storm ?? []) {
      const [p50, p99, max, all] = [r.completionMsP50, r.completionMsP99, r.completionMsMax, r.allCaughtUpMs];
      expect(p50).not.toBeNull();
      expect(p50 as number).toBeLessThanOrEqual(p99 as number);
      expect(p99 as number).toBeLessThanOrEqual(max as number);
      // The last client caught up no sooner than the slowest session's own completion time.
      expect(all as number).toBeGreaterThanOrEqual(max as number);
    }
  });

  it("samples the server like a memory cell", () => {
    for (const r of results.storm ?? []) {
      expect(r.peakRssBytes).toBeGreaterThan(0);
      expect(r.hwmRssBytes).toBeGreaterThan(0);
      expect(r.peakHeapBytes).toBeGreaterThan(0);
      expect(r.postGcHeapBytes).toBeGreaterThan(0);
      expect(r.probeMaxMs).not.toBeNull();
      expect(r.driverLoopLagMs).not.toBeNull();
      const lines = readFileSync(join(runDir, r.samplesFile as string), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { phase?: string; clients?: number });
      const caught = lines.filter((l) => l.phase === "caught-up");
      expect(caught).toHaveLength(N);
      expect(caught.at(-1)?.clients).toBe(N);
    }
  });

  it("shows a storm table in report.md", () => {
    const md = readFileSync(join(runDir, "report.md"), "utf8");
    expect(md).toContain("## Reconnect storm");
    expect(md).toContain(`| 64 B × ${N}, 50% resume | ${N}/${N} → ${N}/${N} | none → none |`);
    const html = readFileSync(join(runDir, "report.html"), "utf8");
    expect(html).toContain('"kind":"storm"');
  });
});

/** An unramped storm of the legacy variant that the backlog check must refuse: its last two stderr lines. */
async function refusedStorm(clients: number, out: string, extra: string[] = []): Promise<string[]> {
  const child = startBench([
    ...["--quick", "--no-latency", "--no-memory", "--storm", String(clients), "--script-bytes", "64"],
    ...["--variants", "legacy", ...extra, "--fixtures-dir", join(dir, "fixtures"), "--out", join(dir, out)],
  ]);
  const { code } = await child.exit(60_000);
  expect(code, child.stderr()).toBe(2);
  return child.stderr().trim().split("\n").slice(-2);
}

describe("the server's listen backlog", () => {
  it("refuses an unramped storm above it, after stating the limits, with exit 2", async () => {
    const [limits, refusal] = await refusedStorm(600, "backlog");
    expect(limits).toMatch(/storm 600 × legacy: .*server listen backlog \d+/);
    expect(refusal).toMatch(/--storm 600 with no ramp exceeds the server's listen backlog of \d+.*--storm-ramp-ms/);
  }, 70_000);

  it("is the bundled server's --backlog, given through --server-arg", async () => {
    const [limits, refusal] = await refusedStorm(N, "server-arg", ["--server-arg=--backlog=8"]);
    expect(limits).toMatch(/storm 12 × legacy: .*server listen backlog 8,/);
    expect(refusal).toMatch(
      /--storm 12 with no ramp exceeds the server's listen backlog of 8 .*--server-arg=--backlog=N/,
    );
  }, 70_000);
});

describe("the descriptor limit", () => {
  it("refuses a storm above the harness's ulimit -n with one line and exit 2", async () => {
    const out = join(dir, "refused");
    const child = spawn(
      "prlimit",
      [
        "--nofile=256:256",
        process.execPath,
        join(ROOT, "bin/catchup-bench.js"),
        "bench",
        "--no-latency",
        "--no-memory",
        "--storm",
        "1000",
        "--out",
        out,
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`no exit within 60 s; stderr: ${err}`));
      }, 60_000);
      child.on("close", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code, err).toBe(2);
    const lines = err.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--storm 1000 needs about \d+ open files in the harness .*ulimit -n\) is 256/);
    expect(existsSync(join(out, "results.json"))).toBe(false);
  }, 70_000);
});
