// run.sh of `catchup-bench k6-operator scenarios/scaleout.js --parallelism 4 CLIENTS=400`, run end to
// end with the k6 double as `k6` (a TEST AID: it writes k6's archive layout) and a fake kubectl
// (test/k6/fakes/kubectl.mjs) that enforces the API server's limits and stands in for the cluster:
// a results volume (a directory), the TestRun's stage and its runners' exit codes. Checked: one
// TestRun, ConfigMap and results folder per run id; the collector pod that makes the folder for uid
// 12345 and copies it out; only this run's summaries merged; the exit code from every runner's.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptySessionResult, type SessionResult } from "../../scenarios/lib/session.js";
import { BIN, runCli } from "../fixtures/cli.js";
import { writeFakeK6 } from "../scenarios/support/k6-double.js";
import { runChild } from "../support/child.js";
import { ROOT } from "../support/server.js";
import { SCENARIOS_DIR } from "./support.js";

const work = mkdtempSync(join(tmpdir(), "catchup-k6-runsh-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const out = join(work, "k6run");

function fakeBin(): string {
  const bin = join(work, "bin");
  mkdirSync(bin, { recursive: true });
  writeFakeK6(bin);
  const kubectl = join(bin, "kubectl");
  writeFileSync(
    kubectl,
    `#!/bin/sh\n# TEST AID: a fake kubectl.\nexec "${process.execPath}" "${join(ROOT, "test/k6/fakes/kubectl.mjs")}" "$@"\n`,
  );
  chmodSync(kubectl, 0o755);
  return bin;
}

function calls(log: string): Array<Record<string, unknown> & { args: string[] }> {
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/** A scaleout runner's summary of 8 sessions (runner i ran sessions i and i+4), from run `runId`. */
function summary(runId: string, i: number): string {
  const ok = (ms: number): SessionResult => ({ ...emptySessionResult(null), ok: true, completionMs: ms, chunks: 1 });
  const rows = Array.from({ length: 8 }, (_, s) =>
    s % 4 === i ? ok(100 + s) : emptySessionResult("session did not run"),
  );
  const figures = { completionMs: { count: 2, min: 100 + i, max: 104 + i, avg: 102 + i }, probeMs: null, errors: 0 };
  return JSON.stringify({
    schema: "catchup-bench/k6-summary@1",
    scenario: "scaleout",
    sessions: 8,
    rows,
    figures,
    runId,
  });
}

/** The results volume: this run's folder with four summaries, and an earlier run's with a stale one. */
function volume(runId: string): string {
  const dir = mkdtempSync(join(work, "volume-"));
  mkdirSync(join(dir, runId));
  for (let i = 0; i < 4; i++)
    writeFileSync(join(dir, runId, `summary-catchup-bench-${runId}-${i + 1}.json`), summary(runId, i));
  mkdirSync(join(dir, "earlier-run"));
  writeFileSync(join(dir, "earlier-run", "summary-old.json"), summary("earlier-run", 0));
  return dir;
}

let n = 0;
/** Runs run.sh with a fresh run id against a fake cluster whose runners exit with `codes`. */
async function runSh(codes: string, env: Record<string, string> = {}) {
  const runId = `run-${++n}`;
  const log = join(work, `kubectl-${n}.log`);
  const run = await runChild("sh", [join(out, "run.sh")], {
    timeoutMs: 120_000,
    env: {
      ...process.env,
      PATH: `${fakeBin()}:${process.env.PATH}`,
      FAKE_KUBECTL_LOG: log,
      FAKE_VOLUME: volume(runId),
      FAKE_RUNNER_EXIT_CODES: codes,
      CATCHUP_BENCH: `${process.execPath} ${BIN}`,
      RUN_ID: runId,
      ...env,
    },
  });
  return { ...run, runId, log };
}

beforeAll(async () => {
  const made = await runCli([
    "k6-operator",
    join(SCENARIOS_DIR, "scaleout.js"),
    "--parallelism",
    "4",
    "--out",
    out,
    "--env",
    "URL=ws://target.load.svc:8080/ws",
    "CLIENTS=400",
  ]);
  expect(made.code, made.stderr).toBe(0);
}, 60_000);

describe("run.sh for scaleout.js --parallelism 4 CLIENTS=400", () => {
  it("ships this run's ConfigMap and TestRun, makes its results folder, fetches and merges only its summaries", async () => {
    const run = await runSh("0,0,0,0");
    expect(run.code, run.stderr).toBe(0);
    const size =
      /archive\.tar: (\d+) bytes \(a ConfigMap holds at most 1048576\); run id run-1, TestRun catchup-bench-run-1/.exec(
        run.stdout,
      );
    expect(size, run.stdout).not.toBeNull();
    // 200 sessions' always-passing thresholds (8 metrics each) dominate the archive's metadata.json.
    expect(Number(size?.[1])).toBeGreaterThan(100_000);

    const c = calls(run.log);
    expect(c.map((x) => x.args.slice(0, 2).join(" "))).toEqual([
      "create configmap",
      "apply --server-side",
      "create -f",
      "wait --for=condition=Ready",
      "create -f",
      "get testrun",
      "get pods",
      "cp -c",
      "delete pod",
    ]);
    expect(c[1]).toMatchObject({
      kind: "ConfigMap",
      serverSide: true,
      annotationBytes: 0,
      dataBytes: Number(size?.[1]),
    });
    expect(c[0]?.args[2]).toBe("catchup-bench-run-1-script");
    const collector = c[2]?.object as {
      metadata: { name: string };
      spec: { initContainers: Array<{ command: string[] }> };
    };
    expect(collector.metadata.name).toBe("catchup-bench-run-1-collector");
    expect(collector.spec.initContainers[0]?.command.at(-1)).toBe(
      "mkdir -p /results/run-1 && chown 12345:12345 /results/run-1 && chmod 0775 /results/run-1",
    );
    const testRun = c[4]?.object as {
      metadata: { name: string };
      spec: { script: { configMap: { name: string } }; runner: { env: Array<{ name: string; value?: string }> } };
    };
    expect(testRun.metadata.name).toBe("catchup-bench-run-1");
    expect(testRun.spec.script.configMap.name).toBe("catchup-bench-run-1-script");
    const env = Object.fromEntries(testRun.spec.runner.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ RUN_ID: "run-1", SUMMARY: "/results/$(RUN_ID)/summary-$(POD_NAME).json" });

    // The earlier run's summary on the volume (another run id: --merge would refuse it) is not fetched.
    expect(existsSync(join(out, "results", "run-1", "summary-old.json"))).toBe(false);
    const merged = JSON.parse(readFileSync(join(out, "results", "run-1", "merged", "merged.json"), "utf8"));
    expect(merged.sessions).toBe(8);
    expect(merged.totals).toMatchObject({ ran: 8, ok: 8 });
  });

  it.each([
    ["0,99,0,0", 99, /runner catchup-bench-run-\d+-2-x7k2p: k6 exit code 99/],
    ["0,99,107,0", 107, /runner catchup-bench-run-\d+-3-x7k2p: k6 exit code 107/],
    ["0,,0,0", 1, /runner catchup-bench-run-\d+-2-x7k2p: k6 exit code none/],
    ["0,0,0", 1, /found 3 runner pods of 4/],
  ])("runners exiting %s (the TestRun finished all the same): run.sh exits %i", async (codes, code, line) => {
    const run = await runSh(codes);
    expect(run.stdout + run.stderr).toMatch(line);
    expect(run.stderr).toMatch(new RegExp(`run run-\\d+ failed: exit ${code}`));
    expect(run.code).toBe(code);
    // The summaries are fetched and merged all the same: what ran is still reported.
    expect(existsSync(join(out, "results", run.runId, "merged", "merged.json"))).toBe(true);
  });

  it("a TestRun in stage error: exit 1, naming it", async () => {
    const run = await runSh("0,0,0,0", { FAKE_STAGE: "error" });
    expect(run.stderr).toMatch(/TestRun catchup-bench-run-\d+ is in stage error/);
    expect(run.code).toBe(1);
    expect(calls(run.log).at(-1)?.args.slice(0, 2)).toEqual(["delete", "pod"]);
  });

  it("a run id whose results folder exists here is refused (exit 2): a run id is used once", async () => {
    mkdirSync(join(out, "results", "used-before"), { recursive: true });
    const run = await runSh("0,0,0,0", { RUN_ID: "used-before" });
    expect(run.stderr).toMatch(/results\/used-before exists: a run id is used once/);
    expect(run.code).toBe(2);
    expect(existsSync(run.log)).toBe(false); // refused before anything reached the cluster
  });

  it("the fake kubectl refuses what a real one refuses: a client-side apply past 262,144 annotation bytes", async () => {
    const log = join(work, "kubectl-limit.log");
    const big = join(work, "big.tar");
    writeFileSync(big, Buffer.alloc(200_000, 7));
    const env = { ...process.env, PATH: `${fakeBin()}:${process.env.PATH}`, FAKE_KUBECTL_LOG: log };
    const yaml = await runChild(
      "kubectl",
      ["create", "configmap", "x", `--from-file=archive.tar=${big}`, "--dry-run=client", "-o", "yaml"],
      { timeoutMs: 30_000, env },
    );
    const file = join(work, "cm.yaml");
    writeFileSync(file, yaml.stdout);
    const clientSide = await runChild("kubectl", ["apply", "-f", file], { timeoutMs: 30_000, env });
    expect(clientSide.code).toBe(1);
    expect(clientSide.stderr).toMatch(/metadata\.annotations: Too long: must have at most 262144 bytes/);
    const serverSide = await runChild("kubectl", ["apply", "--server-side", "-f", file], { timeoutMs: 30_000, env });
    expect(serverSide.code, serverSide.stderr).toBe(0);
  });
});

describe("catchup-bench k6-operator refuses a run whose scenario parameters are missing", () => {
  it("no URL for scaleout.js: exit 2 at k6-operator time, naming URL", async () => {
    const res = await runCli([
      "k6-operator",
      join(SCENARIOS_DIR, "scaleout.js"),
      "--parallelism",
      "4",
      "--out",
      join(work, "no-url"),
      "--env",
      "CLIENTS=400",
    ]);
    expect(res.stderr).toMatch(
      /--env: scaleout\.js needs its parameters here: URL must be a ws:\/\/ or wss:\/\/ address/,
    );
    expect(res.code).toBe(2);
    expect(existsSync(join(work, "no-url", "run.sh"))).toBe(false);
  });
});
