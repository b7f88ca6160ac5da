// The config file end to end: `init` writes a starter config (and keeps an existing one), `bench` in a
// folder with catchup-bench.config.json runs what it says, flags override it, the report's conditions
// line names the file and its digest and results.json keeps the resolved options; a bad key is exit 2,
// one line, before anything starts.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { runNode } from "../support/child.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "catchup-config-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (cwd: string, args: string[]) => runNode([BIN, ...args], { timeoutMs: 120_000, cwd });

describe("a run from catchup-bench.config.json", () => {
  it("takes its options from the file, flags over it, and names the file and digest in the report", async () => {
    const cwd = join(dir, "project");
    mkdirSync(join(cwd, "sub"), { recursive: true });
    const text = `${JSON.stringify({
      quick: true,
      memory: false,
      aa: false,
      cases: ["snapshot"],
      trials: 1,
      "ack-delay-ms": 10,
      "fixtures-dir": "sub/fixtures",
      out: "sub/run",
    })}\n`;
    writeFileSync(join(cwd, "catchup-bench.config.json"), text);
    const r = await cli(cwd, ["bench", "--trials", "2"]);
    expect(r.code, r.stderr).toBe(0);
    // Relative paths from the config's folder; --trials from the command line.
    const results = JSON.parse(readFileSync(join(cwd, "sub", "run", "results.json"), "utf8")) as Results;
    const config = results.run.config ?? {};
    expect(config).toMatchObject({ trials: 2, ackDelayMs: 10, cases: ["snapshot"], memory: false });
    const sha256 = createHash("sha256").update(text).digest("hex");
    expect(config.configFile).toEqual({ path: join(cwd, "catchup-bench.config.json"), sha256 });
    expect(results.latency.filter((l) => l.variant === "legacy").map((l) => l.trial)).toEqual([1, 2]);
    const md = readFileSync(join(cwd, "sub", "run", "report.md"), "utf8");
    // Named from the working directory, as the report shows every path under it.
    expect(md).toContain(`options from catchup-bench.config.json (sha256 ${sha256.slice(0, 12)})`);
  }, 150_000);

  it("refuses an unknown key with exit 2 and one line, before anything starts", async () => {
    const cwd = join(dir, "typo");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "my.json"), '{"trails": 3}');
    const r = await cli(cwd, ["bench", "--config", "my.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/my\.json: unknown key "trails" \(did you mean "trials"\?\)/);
  });
});

describe("init", () => {
  it("writes a starter config comparing the baseline branch with HEAD, and keeps an existing one", async () => {
    const cwd = join(dir, "init");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "package.json"), JSON.stringify({ scripts: { build: "tsc", start: "node ." } }));
    const r = await cli(cwd, ["init", "--baseline", "main"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${join(cwd, "catchup-bench.config.json")}`);
    const config = JSON.parse(readFileSync(join(cwd, "catchup-bench.config.json"), "utf8"));
    expect(config).toMatchObject({
      repo: ".",
      ref: ["baseline=main", "head=HEAD"],
      start: "npm start -- --port {port}",
    });
    const again = await cli(cwd, ["init"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/catchup-bench\.config\.json exists: edit it, or give --force to replace it/);
    expect((await cli(cwd, ["init", "--force", "--baseline", "develop"])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, "catchup-bench.config.json"), "utf8")).ref[0]).toBe("baseline=develop");
  });
});
