// The refs stage's failures, through the compiled CLI: one clear line each (an unknown revision, a
// path that is no repository, git missing, a failing build with its last lines and kept log), and
// a harness SIGKILLed during a build or a run leaves no process behind and, after the next run, no
// stale worktree registered.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { descendants } from "../../scripts/sampler/procfs.js";
import { type BenchChild, startBench, survivorsAfter } from "../bench/bench-child.js";
import { git, repoWithFixture, type TestRepo } from "./support.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));

let dir: string;
let repo: TestRepo;
let fixture: string;
let runs = 0;

const common = (trials = 1) => ["--no-memory", "--cases", "snapshot", "--trials", String(trials), "--fixture", fixture];
const nextOut = () => join(dir, `run-${++runs}`);

/** Registered worktrees (paths), as `git worktree list` shows them. */
const worktrees = () =>
  git(repo.dir, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));

/** Waits for a file the child's build creates; fails early (with its stderr) if the child exits first. */
async function waitForFile(path: string, child: BenchChild, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (child.child.exitCode !== null) throw new Error(`bench exited before ${path} appeared:\n${child.stderr()}`);
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms:\n${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(() => {
  ({ dir, repo, fixture } = repoWithFixture("refs-errors-"));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("bench --repo errors", () => {
  it("an unknown revision is a usage error naming it", async () => {
    const child = startBench([
      ...common(),
      "--repo",
      repo.dir,
      "--ref",
      "a=v1",
      "--ref",
      "b=no-such-tag",
      "--start",
      repo.start,
    ]);
    const { code } = await child.exit(60_000);
    expect(code).toBe(2);
    expect(child.stderr().trim()).toBe(
      `catchup-bench: --ref b=no-such-tag: unknown revision "no-such-tag" in ${repo.dir}`,
    );
  });

  it("a path that is no git repository is a usage error naming it", async () => {
    const child = startBench([...common(), "--repo", dir, "--ref", "a=v1", "--ref", "b=v2", "--start", repo.start]);
    const { code } = await child.exit(60_000);
    expect(code).toBe(2);
    expect(child.stderr().trim()).toBe(
      `catchup-bench: --repo ${dir} is not a git repository (or is a bare one: a working tree is needed)`,
    );
  });

  it("a missing git is one line and no result", () => {
    const r = spawnSync(
      process.execPath,
      [BIN, "bench", ...common(), "--repo", repo.dir, "--ref", "a=v1", "--ref", "b=v2", "--start", repo.start],
      { env: { ...process.env, PATH: join(dir, "no-bin") }, encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status).toBe(3);
    expect(r.stderr.trim()).toBe(
      "catchup-bench: git was not found on PATH (--repo/--ref check out revisions with git); install git",
    );
  });

  it("a failing build shows its last lines, keeps its log, exits 3 and leaves no checkout registered", async () => {
    const build = `echo compiling; echo "src/server.ts(3,7): error TS2322: bad type" >&2; exit 2`;
    const before = worktrees();
    const child = startBench([
      ...common(),
      "--out",
      nextOut(),
      "--repo",
      repo.dir,
      "--ref",
      "a=v1",
      "--ref",
      "b=v2",
      "--build",
      build,
      "--start",
      repo.start,
    ]);
    const { code } = await child.exit(60_000);
    expect(code).toBe(3);
    const m =
      /catchup-bench: build of a \([0-9a-f]{12}\) failed \(exit code 2\) after [\d.]+ s: .*; log kept at (\S+\.log); last lines:\n {2}compiling\n {2}src\/server\.ts\(3,7\): error TS2322: bad type\n$/.exec(
        child.stderr(),
      );
    expect(m, child.stderr()).not.toBeNull();
    expect(readFileSync(m?.[1] as string, "utf8")).toContain("error TS2322");
    expect(worktrees()).toEqual(before);
  });

  it("a failing build with another command leaves every cached build usable, and starts from a clean tree", async () => {
    const args = ["--repo", repo.dir, "--ref", "a=v1", "--ref", "b=v2", "--start", repo.start];
    const good = async () => {
      const child = startBench([...common(), "--out", nextOut(), ...args, "--build", repo.build]);
      const { code } = await child.exit(120_000);
      expect(code, child.stderr()).toBe(0);
      return child.stderr();
    };
    await good();
    const builtBefore = readFileSync(repo.counter, "utf8");
    // Another command, run in a tree of its own: the good build's dist/ is not there, and it fails.
    const bad = startBench([...common(), "--out", nextOut(), ...args, "--build", "test ! -e dist && exit 1"]);
    expect((await bad.exit(60_000)).code, bad.stderr()).toBe(3);
    expect(bad.stderr()).toMatch(/build of a \([0-9a-f]{12}\) failed \(exit code 1\)/);
    const stderr = await good();
    expect(stderr).toMatch(/refs: a \([0-9a-f]{12}\): build cached/);
    expect(stderr).toMatch(/refs: b \([0-9a-f]{12}\): build cached/);
    expect(stderr).not.toMatch(/building in/);
    expect(readFileSync(repo.counter, "utf8")).toBe(builtBefore);
  }, 240_000);

  it("a SIGKILL during a build leaves no process; the next run removes the unfinished checkout", async () => {
    const marker = join(dir, "build-started");
    const args = ["--repo", repo.dir, "--ref", "a=v1", "--ref", "b=v2", "--start", repo.start];
    // Checkouts are keyed by commit and build command: the killed one is the v1 checkout this run added.
    const before = new Set(worktrees());
    const child = startBench([...common(), "--out", nextOut(), ...args, "--build", `touch ${marker} && sleep 300`]);
    await waitForFile(marker, child, 60_000);
    const tree = descendants(child.pid);
    expect(tree.length).toBeGreaterThan(0);
    child.child.kill("SIGKILL");
    await child.exited;
    expect(await survivorsAfter(tree, 15_000)).toEqual([]);
    // The checkout whose build was killed (v1's, built first) is still registered...
    const killed = worktrees().find(
      (w) => !before.has(w) && w.startsWith(join(repo.dir, ".git", "catchup-bench", "worktrees", `${repo.v1}-`)),
    );
    expect(killed).toBeDefined();
    expect(existsSync(join(killed as string, "dist"))).toBe(false);

    // The next run measures v2 only: the killed checkout (v1's, built first) is not reused, but removed.
    const nextArgs = ["--repo", repo.dir, "--ref", "a=v2", "--ref", "b=v2", "--start", repo.start];
    const next = startBench([...common(), "--out", nextOut(), ...nextArgs, "--build", repo.build]);
    const { code } = await next.exit(120_000);
    expect(code, next.stderr()).toBe(0);
    expect(next.stderr()).toContain(`removed the unfinished checkout ${repo.v1.slice(0, 12)}`);
    // ...and after the next run it is gone; the measured checkout is registered, nothing is prunable.
    const results = JSON.parse(readFileSync(join(dir, `run-${runs}`, "results.json"), "utf8")) as Results;
    expect(worktrees()).not.toContain(killed);
    expect(existsSync(killed as string)).toBe(false);
    expect(worktrees()).toEqual(expect.arrayContaining(results.variants.map((v) => v.checkout as string)));
    expect(git(repo.dir, "worktree", "list", "--porcelain")).not.toMatch(/prunable|locked/);
  }, 240_000);

  it("a SIGKILL during a run leaves no process and no stale worktree", async () => {
    const args = ["--repo", repo.dir, "--ref", "a=v1", "--ref", "b=v2", "--build", repo.build, "--start", repo.start];
    const child = startBench([...common(50), "--ack-delay-ms", "200", "--out", nextOut(), ...args]);
    await child.waitFor(/\[2\/\d+\]/, 120_000);
    const tree = descendants(child.pid);
    child.child.kill("SIGKILL");
    await child.exited;
    expect(await survivorsAfter(tree, 15_000)).toEqual([]);
    const next = startBench([...common(), "--out", nextOut(), ...args]);
    const { code } = await next.exit(120_000);
    expect(code, next.stderr()).toBe(0);
    expect(next.stderr()).not.toMatch(/removed the unfinished checkout/);
    const results = JSON.parse(readFileSync(join(dir, `run-${runs}`, "results.json"), "utf8")) as Results;
    expect(worktrees().sort()).toEqual(
      [repo.dir, ...new Set(results.variants.map((v) => v.checkout as string))].sort(),
    );
  }, 240_000);
});
