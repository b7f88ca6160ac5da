// The refs cache stays bounded: once a run's checkouts are ready, checkouts beyond --keep-checkouts
// or --checkout-cache-gb go, least recently used first; never one another live run still uses; the
// using markers of runs that are gone are swept. Real git, real worktrees.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareRefs } from "../../scripts/refs/checkout.js";
import { cacheLayout, type RefsRequest } from "../../scripts/refs/checkout-plan.js";
import { git, repoWithFixture, type TestRepo } from "./support.js";

let dir: string;
let repo: TestRepo;
let v3: string;
let other: ChildProcess | undefined;

beforeAll(() => {
  ({ dir, repo } = repoWithFixture("catchup-keep-"));
  writeFileSync(join(repo.dir, "README"), "a third commit\n");
  git(repo.dir, "commit", "-q", "-am", "third");
  v3 = git(repo.dir, "rev-parse", "HEAD");
});

afterAll(() => {
  other?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Prepares refs a=REV and b=REV (no build); returns the log lines. */
async function prepare(
  revA: string,
  revB: string,
  keepCheckouts: number,
  checkoutCacheBytes: number | null = null,
): Promise<string[]> {
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
    checkoutCacheBytes,
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
    expect(lines.at(-2)).toMatch(
      new RegExp(
        `^refs: removed 1 least recently used checkout \\(${repo.v1.slice(0, 12)}\\): the cache keeps at most 1 \\(--keep-checkouts\\) and [\\d.]+ [kMG]?B \\(--checkout-cache-gb\\)$`,
      ),
    );
    expect(lines.at(-1)).toMatch(
      /^refs: checkout cache \/.*\/\.git\/catchup-bench: 1 checkout, \d+ kB; it keeps at most 1 checkout \(--keep-checkouts\) and [\d.]+ [MG]B \(half the free disk plus the cache; --checkout-cache-gb\)$/,
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

  it("removes least recently used checkouts beyond --checkout-cache-gb, and reports the cache's size", async () => {
    await prepare("v1", "v1", 10); // oldest
    await prepare("v2", "v2", 10);
    const bytes = (commit: string) => Number(readFileSync(layout().size(commit), "utf8"));
    expect(bytes(repo.v1)).toBeGreaterThan(0);
    // Room for this run's checkout and one more: v1, the least recently used, goes; v2 stays.
    await prepare(v3, v3, 10, Math.max(bytes(repo.v1), bytes(repo.v2)) * 2 + 1);
    const lines = await prepare(v3, v3, 10, bytes(v3) + bytes(repo.v2));
    expect(checkedOut(repo.v1)).toBe(false);
    expect(registered(repo.v1)).toBe(false);
    expect(checkedOut(repo.v2) && checkedOut(v3)).toBe(true);
    expect(lines.at(-1)).toContain(": 2 checkouts, ");
    // This run's own checkout stays even when it alone exceeds the bound.
    await prepare(v3, v3, 10, 1);
    expect(checkedOut(v3)).toBe(true);
    expect(checkedOut(repo.v2)).toBe(false);
  });

  it("sweeps the using markers of runs that are gone, for any checkout, and keeps a live run's", async () => {
    const dead = spawn("true", { stdio: "ignore" });
    await new Promise((r) => dead.once("exit", r));
    const gone = dead.pid as number;
    writeFileSync(layout().using(v3, gone), `${gone}\n`);
    writeFileSync(layout().using("0".repeat(40), gone), `${gone}\n`); // a checkout that no longer exists
    await prepare(v3, v3, 10);
    const markers = readdirSync(join(layout().root, "state")).filter((n) => n.includes(".using-"));
    // Only this (live) process's own marker is left.
    expect(markers).toEqual([`${v3}.using-${process.pid}`]);
  });
});
