// The refs cache stays bounded: once a run's checkouts are ready, checkouts beyond --keep-checkouts
// go, least recently used first; never one another live run still uses. Real git, real worktrees.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareRefs } from "../../scripts/refs/checkout.js";
import { cacheLayout, type RefsRequest } from "../../scripts/refs/plan.js";
import { git, repoWithFixture, type TestRepo } from "./support.js";

let dir: string;
let repo: TestRepo;
let other: ChildProcess | undefined;

beforeAll(() => {
  ({ dir, repo } = repoWithFixture("catchup-keep-"));
});

afterAll(() => {
  other?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Prepares refs a=REV and b=REV (no build); returns the log lines. */
async function prepare(revA: string, revB: string, keepCheckouts: number): Promise<string[]> {
  const req: RefsRequest = {
    repo: repo.dir,
    refs: [
      { name: "a", rev: revA },
      { name: "b", rev: revB },
    ],
    build: null,
    start: repo.start,
    buildTimeoutMs: 60_000,
    swap: null,
    keepCheckouts,
  };
  const lines: string[] = [];
  await prepareRefs(req, (l) => lines.push(l));
  return lines;
}

const layout = () => cacheLayout(join(repo.dir, ".git"));
const checkedOut = (commit: string) => existsSync(layout().worktree(commit));
const registered = (commit: string) => git(repo.dir, "worktree", "list", "--porcelain").includes(commit);

describe("--keep-checkouts", () => {
  it("removes the least recently used checkout beyond the limit, and git forgets its worktree", async () => {
    await prepare("v1", "v2", 10);
    expect(checkedOut(repo.v1) && checkedOut(repo.v2)).toBe(true);
    const lines = await prepare("v2", "v2", 1);
    expect(checkedOut(repo.v2)).toBe(true);
    expect(checkedOut(repo.v1)).toBe(false);
    expect(registered(repo.v1)).toBe(false);
    expect(lines.at(-1)).toBe(
      `refs: removed 1 least recently used checkout (${repo.v1.slice(0, 12)}); the cache keeps 1 (--keep-checkouts)`,
    );
  });

  it("keeps a checkout another live run uses, and removes it once that run is gone", async () => {
    // Another run of catchup-bench, as the cache sees one: a live process with a using marker on v2.
    other = spawn("sleep", ["60"], { stdio: "ignore" });
    const pid = other.pid as number;
    writeFileSync(layout().using(repo.v2, pid), `${pid}\n`);
    await prepare("v1", "v1", 1);
    expect(checkedOut(repo.v1) && checkedOut(repo.v2)).toBe(true);
    const exited = new Promise((r) => other?.once("exit", r));
    other.kill("SIGKILL");
    await exited;
    await prepare("v1", "v1", 1);
    expect(checkedOut(repo.v2)).toBe(false);
    expect(existsSync(layout().using(repo.v2, pid))).toBe(false);
  });
});
