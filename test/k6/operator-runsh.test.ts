// run.sh of `catchup-bench k6-operator scenarios/scaleout.js --parallelism 4 CLIENTS=400`, run end to
// end with the k6 double as `k6` (a TEST AID: it writes k6's archive layout) and a fake kubectl that
// enforces the API server's limits (test/k6/fakes/kubectl.mjs): the archive's size is printed, the
// ConfigMap goes through server-side apply (no 262,144-byte last-applied annotation), the previous
// TestRun is deleted, and the TestRun created has this run's id and a securityContext for uid 12345.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../fixtures/cli.js";
import { writeFakeK6 } from "../scenarios/support/k6-double.js";
import { runChild } from "../support/child.js";
import { ROOT } from "../support/server.js";
import { SCENARIOS_DIR } from "./support.js";

const work = mkdtempSync(join(tmpdir(), "catchup-k6-runsh-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

describe("run.sh for scaleout.js --parallelism 4 CLIENTS=400", () => {
  it("prints the archive size, applies the ConfigMap server-side, replaces the TestRun with this run's id", async () => {
    const out = join(work, "k6run");
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
    const log = join(work, "kubectl.log");
    const bin = fakeBin();
    const run = await runChild("sh", [join(out, "run.sh")], {
      timeoutMs: 120_000,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_KUBECTL_LOG: log, RUN_ID: "run-20261201-1" },
    });
    expect(run.code, run.stderr).toBe(0);
    const size =
      /archive\.tar: (\d+) bytes, (\d+) in the ConfigMap \(limit 1048576; client-side kubectl apply would stop at 262144\); run id run-20261201-1/.exec(
        run.stdout,
      );
    expect(size, run.stdout).not.toBeNull();
    const [tarBytes, configMapBytes] = [Number(size?.[1]), Number(size?.[2])];
    // 200 sessions' always-passing thresholds (8 metrics each) dominate the archive's metadata.json.
    expect(tarBytes).toBeGreaterThan(100_000);
    expect(configMapBytes).toBe(Math.ceil(tarBytes / 3) * 4);

    const c = calls(log);
    expect(c.map((x) => x.args.slice(0, 2).join(" "))).toEqual([
      "create configmap",
      "apply --server-side",
      "delete testrun",
      "create -f",
    ]);
    expect(c[1]).toMatchObject({ kind: "ConfigMap", serverSide: true, annotationBytes: 0, dataBytes: tarBytes });
    const testRun = c[3]?.object as {
      spec: { runner: { env: Array<{ name: string; value?: string }>; securityContext: unknown } };
    };
    expect(testRun.spec.runner.securityContext).toEqual({ runAsUser: 12345, runAsGroup: 12345, fsGroup: 12345 });
    const env = Object.fromEntries(testRun.spec.runner.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ RUN_ID: "run-20261201-1", SUMMARY: "/results/summary-$(RUN_ID)-$(POD_NAME).json" });
  });

  it("the fake kubectl refuses what a real one refuses: a client-side apply past 262,144 annotation bytes", async () => {
    const log = join(work, "kubectl-limit.log");
    const big = join(work, "big.tar");
    writeFileSync(big, Buffer.alloc(200_000, 7));
    const bin = fakeBin();
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, FAKE_KUBECTL_LOG: log };
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
