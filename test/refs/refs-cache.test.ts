// The refs cache from the user's side, through the compiled CLI: a repository missing an object
// gives one message with git's own error lines and what to try; --clean-checkouts works from any
// directory, keeps what a live run uses, and says what it removed and the space freed.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBench } from "../bench/bench-child.js";
import { git, quickArgs, repoWithFixture, type TestRepo } from "./support.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));

let dir: string;
let repo: TestRepo;
let fixture: string;
let runs = 0;
let live: ChildProcess | undefined;

/** `bench --repo` on the test repository, into a fresh --out, with args between --repo and --start. */
const run = (...args: string[]) =>
  startBench([
    ...quickArgs(fixture),
    "--out",
    join(dir, `run-${++runs}`),
    "--repo",
    repo.dir,
    ...args,
    "--start",
    repo.start,
  ]);
const worktrees = () =>
  git(repo.dir, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));
const cache = () => join(repo.dir, ".git", "catchup-bench");

beforeAll(() => {
  ({ dir, repo, fixture } = repoWithFixture("refs-cache-"));
});

afterAll(() => {
  live?.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("bench --repo, the checkout cache", () => {
  it("a commit whose blob is missing gives one message with git's own error lines and what to try", async () => {
    // A commit whose one new file's blob is then deleted from the object store (a mirror lacking it).
    writeFileSync(join(repo.dir, "broken.txt"), "a blob only this commit has\n");
    git(repo.dir, "add", "broken.txt");
    git(repo.dir, "commit", "-q", "-m", "broken");
    const broken = git(repo.dir, "rev-parse", "HEAD");
    const blob = git(repo.dir, "rev-parse", "HEAD:broken.txt");
    unlinkSync(join(repo.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    try {
      const child = run("--ref", "a=v1", "--ref", "b=HEAD");
      const { code } = await child.exit(120_000);
      expect(code).toBe(3);
      const err = child.stderr();
      // One message: git's first (progress) line, then its error and fatal lines, then what to try.
      const lines = err.trimEnd().split("\n");
      const first = lines.findIndex((l) => l.startsWith("catchup-bench: "));
      expect(first, err).toBeGreaterThanOrEqual(0);
      expect(lines.slice(first).join("\n")).toMatch(
        new RegExp(
          `^catchup-bench: git worktree add --detach --force \\S+/${broken} ${broken} in \\S+ failed \\(exit 128\\); git said:\\n {2}Preparing worktree \\(detached HEAD [0-9a-f]+\\)\\n {2}error: unable to read sha1 file of broken\\.txt \\(${blob}\\)\\n {2}fatal: Could not reset index file to revision 'HEAD'\\.\\nThe repository lacks objects this commit needs .*fetch --refetch.*then run again\\.$`,
        ),
      );
      expect(worktrees().some((w) => w.includes(broken))).toBe(false);
    } finally {
      git(repo.dir, "reset", "-q", "--hard", "v2");
    }
  }, 180_000);

  it("--clean-checkouts works from another directory, keeps a live run's checkout, and says what it freed", async () => {
    const child = run("--ref", "a=v1", "--ref", "b=v2", "--build", repo.build);
    const { code } = await child.exit(120_000);
    expect(code, child.stderr()).toBe(0);
    expect(child.stderr()).toMatch(/refs: a \([0-9a-f]{12}\): checked out in \d+\.\d s/);
    // The first test's run left v1's checkout without a build; this run's are keyed by their build.
    expect(child.stderr()).toMatch(/refs: checkout cache .*: 3 checkouts, \d+ kB; it keeps at most 10 checkouts/);
    const keys = git(repo.dir, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree ") && l.includes("/catchup-bench/"))
      .map((l) => l.split("/").at(-1) as string);
    expect(keys).toHaveLength(3);
    // Another run uses v2's checkout: a live process with a using marker on it.
    live = spawn("sleep", ["60"], { stdio: "ignore" });
    const v2Key = keys.find((k) => k.startsWith(repo.v2)) as string;
    writeFileSync(join(cache(), "state", `${v2Key}.using-${live.pid}`), `${live.pid}\n`);

    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    const clean = (repoArg: string) =>
      spawnSync(process.execPath, [BIN, "bench", "--repo", repoArg, "--clean-checkouts"], {
        cwd: elsewhere,
        encoding: "utf8",
        timeout: 60_000,
      });
    const first = clean(relative(elsewhere, repo.dir));
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^removed 2 checkouts from ${cache()} \\((${repo.v1.slice(0, 12)}(, )?){2}\\); \\d+ kB freed$`),
      ),
      `kept ${v2Key.slice(0, 12)}: in use by a live run (pid ${live.pid})`,
      expect.stringMatching(/^the cache still holds \d+ kB$/),
    ]);
    expect(worktrees().some((w) => w.includes(repo.v1))).toBe(false);
    expect(worktrees().some((w) => w.includes(repo.v2))).toBe(true);

    const exited = new Promise((r) => live?.once("exit", r));
    live.kill("SIGKILL");
    await exited;
    const second = clean(repo.dir);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout.trim()).toMatch(
      new RegExp(`^removed 1 checkout from ${cache()} \\(${repo.v2.slice(0, 12)}\\); \\d+ kB freed$`),
    );
    expect(existsSync(cache())).toBe(false);
    expect(worktrees()).toEqual([repo.dir]);
  }, 240_000);

  it("--clean-checkouts takes --repo only", () => {
    const r = spawnSync(process.execPath, [BIN, "bench", "--repo", repo.dir, "--clean-checkouts", "--ref", "a=v1"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--clean-checkouts takes only --repo PATH");
  });
});
