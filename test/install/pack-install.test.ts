// catchup-bench installed as a user installs it: `npm pack`, then `npm install --save-dev` of the
// tarball in a scratch project, `npx catchup-bench bench --quick` there, and a foreign-target run
// against a server that lives in that project. Outputs go to the project's ./reports, built fixtures
// to the cache folder ($XDG_CACHE_HOME/catchup-bench), nothing into node_modules.
//
// One shortcut, said here: the install skips install scripts, and better-sqlite3's native build is
// copied from this repository's own install (the same version, built by the same script for this
// Node), because its from-source compile takes over a minute on 2 cores and is better-sqlite3's
// behaviour, not ours. Every other file comes from the tarball and the registry (npm's cache first).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { runChild } from "../support/child.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "catchup-install-"));
const project = join(dir, "project");
const cache = join(dir, "cache");
let installed: string;
let projectCommit: string;
const git = (cwd: string, args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
const harnessCommit = git(ROOT, ["rev-parse", "HEAD"]);

const npx = (args: string[]) =>
  runChild("npx", ["--no-install", "catchup-bench", ...args], {
    timeoutMs: 240_000,
    cwd: project,
    env: { ...process.env, XDG_CACHE_HOME: cache },
  });

beforeAll(() => {
  execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], {
    cwd: ROOT,
    stdio: "ignore",
    timeout: 120_000,
  });
  const tarball = join(dir, readdirSync(dir).find((f) => f.endsWith(".tgz")) as string);
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", version: "1.0.0", private: true }));
  execFileSync(
    "npm",
    ["install", "--save-dev", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball],
    {
      cwd: project,
      stdio: "ignore",
      timeout: 240_000,
    },
  );
  const native = ["node_modules", "better-sqlite3", "build"];
  cpSync(join(ROOT, ...native), join(project, ...native), { recursive: true });
  installed = join(project, "node_modules", "catchup-bench");
  // The user's project is a git repository of its own.
  git(project, ["init", "-q"]);
  git(project, ["add", "package.json"]);
  git(project, ["-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "the user's project"]);
  projectCommit = git(project, ["rev-parse", "HEAD"]);
  // A server of the user's own, in their project (a small test target speaking the Effect RPC wire).
  cpSync(join(ROOT, "test", "support", "rpc-target.mjs"), join(project, "support", "rpc-target.mjs"));
  cpSync(join(ROOT, "test", "report", "targets", "slow-case.mjs"), join(project, "server", "targets", "slow-case.mjs"));
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("installed with npm install --save-dev <tarball>", () => {
  it("ships the compiled CLI and what it runs, without tests, docs or sources", () => {
    for (const f of [
      "bin/catchup-bench.js",
      "dist/scripts/cli.js",
      "dist/server-under-test/main.js",
      "scenarios/memory.js",
      "catchup-bench.schema.json",
      "bindings/binding.d.ts",
      "bindings/t3code.mjs",
    ])
      expect(existsSync(join(installed, f)), f).toBe(true);
    for (const f of ["test", "docs", "scripts", "server-under-test", "fixtures"])
      expect(existsSync(join(installed, f)), f).toBe(false);
  });

  it("knows its shipped bindings by name from the user's project", async () => {
    const r = await npx(["bench", "--binding", "t3-code", "--target", "a=node server.mjs --port {port} --dir {state}"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--binding "t3-code": no such file, and not a shipped binding \(shipped: t3code\)/);
  });

  it("runs bench --quick from the project, reports in ./reports, fixtures in the cache", async () => {
    const r = await npx(["bench", "--quick", "--no-memory", "--cases", "snapshot,resume-many"]);
    expect(r.code, r.stderr).toBe(0);
    const runs = readdirSync(join(project, "reports")).filter((f) => f !== ".gitignore");
    expect(runs).toHaveLength(1);
    const run = join(project, "reports", runs[0] as string);
    expect(existsSync(join(run, "report.md"))).toBe(true);
    // The harness is named by its own commit (recorded when it was built), not the project's.
    const results = JSON.parse(readFileSync(join(run, "results.json"), "utf8")) as Results;
    expect(results.run.gitCommit).not.toBe(projectCommit);
    expect(results.run.gitCommit).toBe(harnessCommit);
    // Its run folders stay out of the project's git status.
    expect(git(project, ["status", "--porcelain", "--untracked-files=all"])).not.toMatch(/reports\//);
    expect(readFileSync(join(run, "report.md"), "utf8")).toContain(
      `catchup-bench ${results.run.harnessVersion}, commit ${harnessCommit.slice(0, 12)}`,
    );
    expect(readdirSync(join(cache, "catchup-bench", "fixtures")).some((f) => f.endsWith(".sqlite"))).toBe(true);
    expect(existsSync(join(installed, "reports"))).toBe(false);
    expect(existsSync(join(installed, "fixtures"))).toBe(false);
  }, 240_000);

  it("runs clinic only when the project has clinic.js: else exit 2, one line naming the install", async () => {
    const r = await npx(["clinic", "doctor"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/clinic\.js is not installed .*npm install --save-dev clinic@13\.0\.0/);
    const reports = join(project, "reports");
    expect(existsSync(reports) ? readdirSync(reports).filter((f) => f.startsWith("clinic-")) : []).toEqual([]);
  });

  it("measures a server of the project through --target", async () => {
    const target = (name: string, ms: number) =>
      `${name}=node server/targets/slow-case.mjs --port {port} --base-ms ${ms}`;
    const r = await npx([
      "bench",
      "--no-memory",
      "--trials",
      "2",
      "--latency-sequential",
      "0",
      "--out",
      "reports/foreign",
      "--target",
      target("a", 40),
      "--target",
      target("b", 20),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(project, "reports", "foreign", "results.json"))).toBe(true);
  }, 240_000);
});
