// `init` reads the repository it runs in, as a new user's would be: package.json's scripts (a start
// script that fixes its port and store is run with {port} and {state} in their place, never `npm
// start` with a second --port), git's branches (the remote's default branch, else main or master),
// and warns, exit 0, outside a git repository or for a baseline that does not exist. `--binding`
// writes a binding skeleton that keeps the contract and type-checks against it; run folders stay
// out of `git status`. Real git repositories in a scratch folder, the compiled CLI.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadBinding } from "../../scripts/seed/load-binding.js";
import { runNode } from "../support/child.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "catchup-bench.js");
const dir = mkdtempSync(join(tmpdir(), "catchup-init-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const init = (cwd: string, args: string[] = []) => runNode([BIN, "init", ...args], { timeoutMs: 60_000, cwd });
const git = (cwd: string, args: string[]) =>
  execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", ...args], { cwd, encoding: "utf8" }).trim();
const config = (cwd: string) => JSON.parse(readFileSync(join(cwd, "catchup-bench.config.json"), "utf8"));

/** A git repository holding a package.json with these scripts, committed on `branch`. */
function repo(name: string, scripts: Record<string, string>, branch = "main"): string {
  const cwd = join(dir, name);
  mkdirSync(cwd);
  writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: `srv-${name}`, scripts }));
  writeFileSync(join(cwd, "package-lock.json"), "{}");
  git(cwd, ["init", "-q", "-b", branch]);
  git(cwd, ["add", "."]);
  git(cwd, ["commit", "-qm", "server"]);
  return cwd;
}

describe("init reads package.json's scripts", () => {
  it("runs a start script that fixes its port and store with {port} (and {state} with --binding), saying so", async () => {
    const cwd = repo("fixed", {
      build: "tsc",
      start: "npm run build && node dist/server.js --state ./data --port 8787",
    });
    const r = await init(cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(config(cwd)).toMatchObject({
      ref: ["baseline=main", "head=HEAD"],
      build: "npm ci && npm run build",
      start: "node dist/server.js --state ./data --port {port}",
    });
    expect(r.stdout).toMatch(/start script fixes its port 8787 and store \.\/data/);
    expect(r.stdout).toMatch(
      /the store \.\/data is then shared by every trial: seed a copy per trial with "binding" and \{state\}/,
    );
    const b = await init(cwd, ["--force", "--binding"]);
    expect(b.code, b.stderr).toBe(0);
    expect(config(cwd)).toMatchObject({
      start: "node dist/server.js --state {state} --port {port}",
      binding: "./bench/binding.mjs",
    });
  });

  it("passes the port to a start script that does not fix one", async () => {
    const cwd = repo("free", { start: "node server.js" });
    expect((await init(cwd)).code).toBe(0);
    expect(config(cwd)).toMatchObject({ start: "npm start -- --port {port}", build: "npm ci" });
  });

  it("names binding, {state}, url-path and completion in what to check", async () => {
    const r = await init(repo("hint", { start: "node server.js" }));
    for (const word of ['"binding"', "{state}", '"url-path"', '"completion"', "init --binding"]) {
      expect(r.stdout).toContain(word);
    }
  });
});

describe("init reads git's branches", () => {
  it("takes main or master as it is there, and the remote's default branch over both", async () => {
    const master = repo("master", { start: "node s.js" }, "master");
    const r = await init(master);
    expect(r.stderr).toBe("");
    expect(config(master).ref[0]).toBe("baseline=master");
    const upstream = repo("upstream", { start: "node s.js" }, "trunk");
    const clone = join(dir, "clone");
    git(dir, ["clone", "-q", upstream, clone]);
    expect((await init(clone)).stderr).toBe("");
    expect(config(clone).ref[0]).toBe("baseline=origin/trunk");
  });

  it("warns, exit 0, outside a git repository and for a baseline that does not exist", async () => {
    const plain = join(dir, "plain");
    mkdirSync(plain);
    const outside = await init(plain);
    expect(outside.code).toBe(0);
    expect(outside.stderr.trim().split("\n")).toHaveLength(1);
    expect(outside.stderr).toMatch(
      /^catchup-bench: warning: .*plain is not in a git repository: .*`bench` will refuse it/,
    );
    const cwd = repo("nosuch", { start: "node s.js" });
    git(cwd, ["branch", "feature"]);
    const missing = await init(cwd, ["--baseline", "develop"]);
    expect(missing.code).toBe(0);
    expect(missing.stderr.trim()).toBe(
      `catchup-bench: warning: the baseline develop is no revision of ${cwd} (its branches: feature, main): edit "ref" in catchup-bench.config.json, or run init --force --baseline BRANCH`,
    );
  });
});

describe("init --binding", () => {
  it("init then init --binding, as its hint says: the skeleton, named in the config kept as edited", async () => {
    const cwd = repo("later", { start: "node server.js --state ./data --port 8787" });
    expect((await init(cwd)).code).toBe(0);
    const edited = { ...config(cwd), cases: ["snapshot"] };
    writeFileSync(join(cwd, "catchup-bench.config.json"), JSON.stringify(edited));
    const r = await init(cwd, ["--binding"]);
    expect(r.code, r.stderr).toBe(0);
    expect(config(cwd)).toEqual({
      ...edited,
      start: "node server.js --state {state} --port {port}",
      binding: "./bench/binding.mjs",
    });
    expect(r.stdout).toMatch(/^wrote .*bench\/binding\.mjs: fill it in/);
    expect(r.stdout).toContain('"start" is now "node server.js --state {state} --port {port}"');
    readFileSync(join(cwd, "bench", "binding.mjs"), "utf8");
    // A config naming another binding is the user's: kept, and said.
    writeFileSync(join(cwd, "catchup-bench.config.json"), JSON.stringify({ binding: "t3code" }));
    const other = await init(cwd, ["--binding", "--force"]);
    expect(other.code).toBe(0);
    rmSync(join(cwd, "bench"), { recursive: true });
    writeFileSync(join(cwd, "catchup-bench.config.json"), JSON.stringify({ binding: "t3code" }));
    const kept = await init(cwd, ["--binding"]);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toMatch(/already names the binding "t3code": edit it, or give --force to replace it/);
  });

  it("writes a skeleton that keeps the contract, type-checks against it, and is not overwritten without --force", async () => {
    const cwd = repo("skeleton", { start: "node server.js --port 3000" });
    const r = await init(cwd, ["--binding"]);
    expect(r.code, r.stderr).toBe(0);
    const file = join(cwd, "bench", "binding.mjs");
    const text = readFileSync(file, "utf8");
    expect(text).toContain('/** @type {import("catchup-bench/bindings/binding.js").Binding} */');
    const loaded = await loadBinding(file, ROOT, cwd, 30_000);
    expect(loaded.binding.name).toBe("srv-skeleton");
    // It says the order its server needs: a window of writes unless the author makes it "strict".
    expect(loaded.binding.order).toBe("entity");
    expect(text).toMatch(/order: "entity",/);
    // Its JSDoc types hold against the shipped contract, as an editor would check them.
    mkdirSync(join(cwd, "node_modules"));
    execFileSync("ln", ["-s", ROOT, join(cwd, "node_modules", "catchup-bench")]);
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const args = ["--noEmit", "--allowJs", "--checkJs", "--strict", "--module", "nodenext", "--target", "es2022", file];
    execFileSync(process.execPath, [tsc, ...args], { cwd, stdio: "pipe", timeout: 120_000 });
    // Until it is filled in, a write says which function is not.
    await expect(loaded.binding.write({ sequence: 1, type: "project.created" } as never, {} as never)).rejects.toThrow(
      "bench/binding.mjs: write() is not filled in yet (fixture event 1, project.created)",
    );
    writeFileSync(join(cwd, "catchup-bench.config.json"), "{}");
    rmSync(join(cwd, "catchup-bench.config.json"));
    const again = await init(cwd, ["--binding"]);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(
      `catchup-bench: ${join(cwd, "bench", "binding.mjs")} exists: edit it, or give --force to replace it`,
    );
    expect(readFileSync(file, "utf8")).toBe(text);
  }, 150_000);
});

describe("run folders", () => {
  it("stay out of git status: init leaves reports/ ignored by a file of its own", async () => {
    const cwd = repo("status", { start: "node server.js" });
    expect((await init(cwd, ["--binding"])).code).toBe(0);
    mkdirSync(join(cwd, "reports", "2026-12-04T10-00-00Z"), { recursive: true });
    writeFileSync(join(cwd, "reports", "2026-12-04T10-00-00Z", "results.json"), "{}");
    const status = git(cwd, ["status", "--porcelain", "--untracked-files=all"]).split("\n").sort();
    expect(status).toEqual(["?? bench/binding.mjs", "?? catchup-bench.config.json"]);
  });
});
