// `k6-operator --server-pod-snippet`: the agent sidecar's pod-spec snippet (shared process
// namespace, the runners' volume) and the README's per-run commands. The commands are run here as
// the sidecar would run them (kubectl exec's prefix taken off, /app and /results moved to this
// checkout and a scratch directory) against the real bundled server: they start the agent detached,
// and SIGINT through the pid file stops it with its end line written.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSamples } from "../agent/support.js";
import { ROOT, runCli } from "../fixtures/cli.js";
import { until } from "../sampler/support.js";
import { smallFixture } from "../scenarios/support/fixture.js";
import { type RunningServer, startServer } from "../support/server.js";
import { SCENARIOS_DIR } from "./support.js";

const fixture = smallFixture();
let server: RunningServer;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "catchup-server-pod-"));
  server = await startServer(fixture.path, [], 20_000, ["--inspect=127.0.0.1:0"]);
});

afterAll(async () => {
  await server?.stop();
  fixture.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `k6-operator scaleout.js --parallelism 2 --out OUT --env ENV... --server-pod-snippet`. */
const snippetRun = (out: string, env: string[], script = join(SCENARIOS_DIR, "scaleout.js")) =>
  runCli(["k6-operator", script, "--parallelism", "2", "--out", out, "--env", ...env, "--server-pod-snippet"]);

describe("k6-operator --server-pod-snippet", () => {
  it("writes the sidecar snippet and README commands that start and stop the agent for one run", async () => {
    const out = join(work, "op");
    const port = new URL(server.url).port;
    const run = await snippetRun(out, [`URL=ws://target:${port}/ws`, "CLIENTS=4"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("server-pod-snippet.yaml");
    const snippet = readFileSync(join(out, "server-pod-snippet.yaml"), "utf8");
    expect(snippet).toMatch(/^shareProcessNamespace: true/m);
    expect(snippet).toMatch(/- name: catchup-sample\n\s+image: catchup-bench-agent:latest/);
    expect(snippet).toMatch(/mountPath: \/results/);
    expect(snippet).toMatch(/claimName: catchup-results/);
    const readme = readFileSync(join(out, "README.md"), "utf8");
    const lines = readme
      .split("\n")
      .filter((l) => l.startsWith('kubectl exec "$SERVER_POD" -c catchup-sample -- sh -c'));
    expect(lines).toHaveLength(2);
    expect(readme).toMatch(/--merge "results\/\$RUN_ID"\/summary-\*\.json --samples "results\/\$RUN_ID\/agent\.jsonl"/);

    // As the sidecar runs them: no kubectl, this checkout as /app, a scratch directory as /results.
    const local = (line: string) =>
      line
        .replace(/^kubectl exec "\$SERVER_POD" -c catchup-sample -- /, "")
        .replaceAll("/app/", `${ROOT}/`)
        .replaceAll("/results/", `${work}/`)
        .replaceAll("/tmp/catchup-sample.pid", join(work, "agent.pid"));
    const env = { ...process.env, RUN_ID: "r1" };
    execFileSync("sh", ["-c", local(lines[0] as string)], { env, timeout: 10_000 });
    const file = join(work, "agent-r1.jsonl");
    await until(() => existsSync(file) && readSamples(file).filter((l) => "rss" in l).length >= 5, 15_000, "samples");
    execFileSync("sh", ["-c", local(lines[1] as string)], { env, timeout: 10_000 });
    await until(() => readSamples(file).at(-1)?.phase === "end", 15_000, "the end line");
    const samples = readSamples(file);
    expect(samples.find((l) => l.phase === "agent")).toMatchObject({ pid: server.pid, heap: true });
    expect(samples.at(-1)).toMatchObject({ phase: "end", reason: "SIGINT" });
    expect(samples.some((l) => l.phase === "gc" && typeof l.heapUsed === "number")).toBe(true);
  });

  it("refuses a snippet without the server's port, in one line", async () => {
    // A script of the user's own (ours refuse a missing URL before this): no URL, no port.
    const own = join(work, "own.js");
    writeFileSync(own, "export default function () {}\n");
    const run = await snippetRun(join(work, "refused"), ["CLIENTS=4"], own);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^catchup-bench: --server-pod-snippet needs the server's port/);
    expect(existsSync(join(work, "refused", "testrun.json"))).toBe(false);
  });
});
