// A distributed run end to end under the k6 double (a TEST AID; k6-operator runs real k6): the VU
// split scenario runs as two runners, each an execution segment as k6-operator gives them, against
// the real bundled server; each runner's summary holds only its own sessions, with indices unique
// across runners; `report --merge` renders one report from both. The k6-operator command writes
// the TestRun and refuses what would not scale out.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../fixtures/cli.js";
import { smallFixture } from "../scenarios/support/fixture.js";
import { type RunningServer, startServer } from "../support/server.js";
import { runDouble, SCENARIOS_DIR } from "./support.js";

const fixture = smallFixture();
let legacy: RunningServer;
let work: string;

beforeAll(async () => {
  legacy = await startServer(fixture.path, ["--delivery", "legacy"]);
  work = mkdtempSync(join(tmpdir(), "catchup-k6-scaleout-"));
});

afterAll(async () => {
  await legacy?.stop();
  fixture.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Row {
  ok: boolean;
  chunks: number;
  error: string | null;
}

async function runner(segment: string, dir: string) {
  mkdirSync(dir, { recursive: true });
  const run = await runDouble("scaleout.js", {
    args: ["--execution-segment", segment, "--execution-segment-sequence", "0,1/2,1"],
    env: {
      URL: legacy.url,
      CLIENTS: "4",
      CASE: "none",
      ACK_DELAY_MS: "0",
      HOLD_MS: "0",
      SUMMARY: join(dir, "summary.json"),
    },
  });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as { rows: Row[]; figures: { errors: number } };
}

describe("scaleout.js split across two runners", () => {
  it("each runner runs its share; indices are unique; report --merge renders one report", async () => {
    const a = join(work, "runner-a");
    const b = join(work, "runner-b");
    const [sa, sb] = await Promise.all([runner("0:1/2", a), runner("1/2:1", b)]);
    const ran = (rows: Row[]) => rows.flatMap((r, i) => (r.error === "session did not run" ? [] : [i]));
    // k6 stripes VU ids over the instances (lib/execution_segment.go): the first half runs VUs 1 and 3.
    expect(ran(sa.rows)).toEqual([0, 2]);
    expect(ran(sb.rows)).toEqual([1, 3]);
    expect([sa.rows[0], sb.rows[1], sa.rows[2], sb.rows[3]].map((r) => [r?.ok, r?.chunks])).toEqual([
      [true, 2],
      [true, 2],
      [true, 2],
      [true, 2],
    ]);

    const out = join(work, "merged");
    const merged = await runCli(["report", "--merge", a, b, "--out", out]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^# k6 distributed run: scaleout, 2 runners/);
    expect(merged.stdout).toMatch(/4 sessions; 4 ran \(4 ok, 0 failed\); 0 in no summary; 0 errors/);
    expect(merged.stdout).toMatch(/Thresholds were evaluated by each runner/);
    expect(merged.stdout).toMatch(/\| completion \| 4 \|/);
    expect(merged.stdout).toMatch(/\| probe \| 4 \|/);
    const json = JSON.parse(readFileSync(join(out, "merged.json"), "utf8"));
    expect(json.rows.map((r: { runner: string }) => r.runner)).toEqual([
      join(a, "summary.json"),
      join(b, "summary.json"),
      join(a, "summary.json"),
      join(b, "summary.json"),
    ]);
    expect(readFileSync(join(out, "merged.md"), "utf8")).toBe(merged.stdout.split("\nmerged.md:")[0]);

    // The same runner twice is not one run: session indices collide.
    const twice = await runCli(["report", "--merge", a, a]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/session 0 ran on .* and .*: session indices are not unique/);
  });
});

describe("catchup-bench k6-operator", () => {
  it("writes the TestRun, run.sh and README for scaleout.js", async () => {
    const out = join(work, "operator");
    const script = join(SCENARIOS_DIR, "scaleout.js");
    const run = await runCli([
      "k6-operator",
      script,
      "--parallelism",
      "4",
      "--out",
      out,
      "--env",
      "URL=ws://target:8080/ws",
      "CLIENTS=400",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/sh .*run\.sh/);
    expect(readFileSync(join(out, "run.sh"), "utf8")).toMatch(
      /k6 archive -e RUN_ID="\$RUN_ID" -e CLIENTS=400 -e URL=ws:\/\/target:8080\/ws .*scaleout\.js -O archive\.tar/,
    );
    const manifest = JSON.parse(readFileSync(join(out, "testrun.json"), "utf8"));
    expect(manifest).toMatchObject({
      kind: "TestRun",
      spec: { parallelism: 4, script: { configMap: { file: "archive.tar" } } },
    });
    expect(statSync(join(out, "run.sh")).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(out, "README.md"), "utf8")).toMatch(/report --merge/);
  });

  it.each([
    [["memory.js", "--parallelism", "2"], /memory\.js runs one VU, so --parallelism 2 would leave runners idle/],
    [["scaleout.js", "--parallelism", "2", "--env", "TOKEN=secret"], /use --token-secret/],
    [["scaleout.js", "--parallelism", "8", "--env", "CLIENTS=4"], /CLIENTS=4, fewer than --parallelism 8/],
    // CLIENTS left at the script's default: scaleout.js runs 1 VU, storm.js 100.
    [
      ["scaleout.js", "--parallelism", "2"],
      /scaleout\.js runs 1 VU by default \(CLIENTS\), fewer than --parallelism 2/,
    ],
    [
      ["storm.js", "--parallelism", "101"],
      /storm\.js runs 100 VUs by default \(CLIENTS\), fewer than --parallelism 101/,
    ],
    [["thread.js", "--parallelism", "2"], /thread\.js runs one VU, so --parallelism 2 would leave runners idle/],
    // Credentials under other names or inside values: the files would hold them in clear.
    [
      ["scaleout.js", "--parallelism", "2", "--env", "URL=ws://x/ws?token=s3cr3t"],
      /URL=\.\.\.: .*query.*--token-secret/,
    ],
    [["scaleout.js", "--parallelism", "2", "--env", "CATCHUP_TOKEN=s3cr3t"], /CATCHUP_TOKEN=\.\.\.: .*--token-secret/],
    [["scaleout.js", "--parallelism", "2", "--env", "AUTH=Bearer s3cr3t"], /AUTH=\.\.\.: .*--token-secret/],
    [["scaleout.js", "--parallelism", "2", "--env", "URL=ws://user:s3cr3t@x/ws"], /URL=\.\.\.: .*user:pw@/],
    [["scaleout.js", "--parallelism", "2", "--env", 'HEADERS={"X-Api-Key":"s3cr3t"}'], /HEADERS=\.\.\.: .*X-Api-Key/],
    [["scaleout.js", "--parallelism", "0"], /--parallelism must be an integer from 1 to 1000/],
    [["scaleout.js", "--parallelism", "2", "--env", "CLIENTS=2", "--name", "Bad_Name"], /--name must be a DNS label/],
  ])("refuses %j with exit 2 and one line", async (args, message) => {
    const [file, ...rest] = args as string[];
    const out = join(work, "refused");
    const run = await runCli(["k6-operator", join(SCENARIOS_DIR, file as string), ...rest, "--out", out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(() => statSync(join(out, "testrun.json"))).toThrow();
    expect(run.stderr).not.toContain("s3cr3t");
  });
});
