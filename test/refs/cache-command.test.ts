// The --ref cache from the user's side: a --ref run's last lines name the cache's size and the
// command that lists and cleans it; `catchup-bench cache` lists each checkout (commit, build, size,
// last use) and git's detached worktrees; `cache --clean --ref REV` removes one revision's checkouts,
// `cache --clean` the rest, pruning git's worktree list. Found from the repository, or from the
// config file's "repo". Real git, the compiled CLI.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBench } from "../bench/bench-child.js";
import { git, refsRunArgs, repoWithFixture, type TestRepo } from "./support.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));

let dir: string;
let repo: TestRepo;
let fixture: string;

beforeAll(() => {
  ({ dir, repo, fixture } = repoWithFixture("refs-cache-command-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cache = (cwd: string, args: string[] = []) =>
  spawnSync(process.execPath, [BIN, "cache", ...args], { cwd, encoding: "utf8", timeout: 60_000 });
const worktrees = () =>
  git(repo.dir, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));
const root = () => join(repo.dir, ".git", "catchup-bench");

describe("the checkout cache a --ref run leaves", () => {
  it("is named with its size and command in the run's last lines, listed, and cleaned by revision, then whole", async () => {
    const child = startBench([...refsRunArgs(repo, fixture, join(dir, "run")), "--ref", "a=v1", "--ref", "b=v2"]);
    const { code } = await child.exit(180_000);
    expect(code, child.stderr()).toBe(0);
    const last = child.stderr().trimEnd().split("\n").slice(-3);
    expect(last).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^refs: the checkout cache ${root()} holds 2 checkouts, \\d+ kB: \`catchup-bench cache --repo ${repo.dir}\` lists them, \`catchup-bench cache --repo ${repo.dir} --clean\` removes them$`,
        ),
      ),
    );

    // Listed from the repository itself, without --repo.
    const listed = cache(repo.dir);
    expect(listed.status, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      new RegExp(`^checkout cache of ${repo.dir}: ${root()}, \\d+ kB \\(checkouts with their builds`),
    );
    for (const [commit, subject] of [
      [repo.v1, "three chunks"],
      [repo.v2, "one chunk"],
    ]) {
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^ {2}${(commit as string).slice(0, 12)} {2}"${subject}" {2}build "node build\\.mjs .*" {2}\\d+ kB {2}last used \\d+ s ago$`,
          ),
        ),
      );
    }
    expect(lines.at(-1)).toMatch(/^git lists 2 of them as detached worktrees/);
    expect(worktrees()).toHaveLength(3);

    // One revision's, from a folder whose config file names the repository.
    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(join(project, "catchup-bench.config.json"), JSON.stringify({ repo: "../server-repo" }));
    const one = cache(project, ["--clean", "--ref", "v1"]);
    expect(one.status, one.stderr).toBe(0);
    expect(one.stdout).toMatch(
      new RegExp(`^removed 1 checkout from ${root()} \\(${repo.v1.slice(0, 12)}\\); \\d+ kB freed`),
    );
    expect(worktrees().some((w) => w.includes(repo.v1))).toBe(false);
    expect(worktrees().some((w) => w.includes(repo.v2))).toBe(true);

    const all = cache(project, ["--clean"]);
    expect(all.status, all.stderr).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`^removed 1 checkout from ${root()} \\(${repo.v2.slice(0, 12)}\\)`));
    expect(existsSync(root())).toBe(false);
    expect(worktrees()).toEqual([repo.dir]);
    expect(cache(repo.dir).stdout.trim()).toBe(`the checkout cache of ${repo.dir} is empty (${root()}: 0 B)`);
  }, 240_000);

  it("refuses an unknown revision, --ref without --clean, and a folder in no repository, in one line", () => {
    const unknown = cache(repo.dir, ["--clean", "--ref", "nosuch"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe(`catchup-bench: --ref "nosuch": no such revision in ${repo.dir}`);
    const bare = cache(repo.dir, ["--ref", "v1"]);
    expect(bare.stderr.trim()).toBe("catchup-bench: --ref goes with --clean (the revision whose checkouts to remove)");
    const plain = join(dir, "plain");
    mkdirSync(plain);
    const none = cache(plain);
    expect(none.status).toBe(2);
    expect(none.stderr.trim()).toMatch(/^catchup-bench: --repo .*plain is not a git repository/);
  });
});
