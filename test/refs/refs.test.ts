// End to end: the compiled CLI measures a small Effect RPC server in a temporary git repository by
// git ref. v1 sends 3 chunks through completion, v2 (HEAD) 1; the results must show those counts
// beside the exact commits; a second run of the same refs builds nothing; WORKTREE measures an
// uncommitted edit; the swap mode's baseline differs from the candidate in the swapped file only.
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { startBench } from "../bench/bench-child.js";
import { chunksModule, git, refsRunArgs, repoWithFixture, type TestRepo } from "./support.js";

let dir: string;
let repo: TestRepo;
let fixture: string;
let runs = 0;

async function bench(args: string[]): Promise<{ results: Results; stderr: string; stdout: string; report: string }> {
  const out = join(dir, `run-${++runs}`);
  const child = startBench([...refsRunArgs(repo, fixture, out), ...args]);
  const { code } = await child.exit(120_000);
  expect(code, child.stderr()).toBe(0);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
  return {
    results,
    stderr: child.stderr(),
    stdout: child.stdout(),
    report: readFileSync(join(out, "report.md"), "utf8"),
  };
}

/** A report section: from its "## title" heading to the next one. */
const section = (md: string, title: string) => md.split(/^## /m).find((s) => s.startsWith(title)) ?? "";
const builds = () => readFileSync(repo.counter, "utf8").split("\n").filter(Boolean).length;
const chunksOf = (r: Results, variant: string) => r.latency.filter((l) => l.variant === variant).map((l) => l.chunks);
const variant = (r: Results, name: string) => r.variants.find((v) => v.name === name);

beforeAll(() => {
  ({ dir, repo, fixture } = repoWithFixture("refs-"));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("bench --repo --ref", () => {
  it("measures two commits, records them, and reuses the builds on a second run", async () => {
    const first = await bench(["--ref", "main=v1", "--ref", "head=HEAD"]);
    expect(chunksOf(first.results, "main")).toEqual([3]);
    expect(chunksOf(first.results, "head")).toEqual([1]);
    const main = variant(first.results, "main");
    const head = variant(first.results, "head");
    expect(main).toMatchObject({ role: "baseline", ref: "v1", commit: repo.v1, dirty: false, buildCached: false });
    expect(head).toMatchObject({ role: "candidate", ref: "HEAD", commit: repo.v2, dirty: false, buildCached: false });
    expect(main?.buildMs).toBeGreaterThan(0);
    expect(existsSync(main?.buildLog as string)).toBe(true);
    expect(readFileSync(main?.buildLog as string, "utf8")).toContain("built");
    // Each build ran in its own checkout, not in the repository.
    expect(readFileSync(repo.counter, "utf8").split("\n").filter(Boolean).sort()).toEqual(
      [main?.checkout, head?.checkout].sort(),
    );
    expect(first.stderr).toMatch(/building in/);
    expect(first.stdout).toContain(`ref v1 = ${repo.v1.slice(0, 12)}`);
    // What each target ran on (its listening process's executable), and its checkout and build times.
    const node = { exe: realpathSync(process.execPath), node: process.version };
    expect(main?.runtime).toEqual(node);
    expect(head?.runtime).toEqual(node);
    expect(main?.checkoutMs).toBeGreaterThan(0);
    expect(main?.checkoutCached).toBe(false);
    const targets = section(first.report, "Targets");
    expect(targets).toMatch(
      new RegExp(
        `\\| main \\| baseline \\| Node ${process.version} \\| v1 = ${repo.v1.slice(0, 12)} \\| \\d+\\.\\d s \\| \\d+\\.\\d s \\|`,
      ),
    );
    // Items and bytes through completion per case: v1 sends 3 chunks (3 items), v2 one.
    const bytes = (name: string) =>
      (first.results.latency.find((l) => l.variant === name)?.bytes ?? 0).toLocaleString("en-US");
    expect(targets).toContain(`| snapshot | 3 / 3 / ${bytes("main")} | 1 / 1 / ${bytes("head")} |`);
    expect(first.report).toMatch(/Environment: harness on Node v/);
    // The run's using markers go with it.
    const state = readdirSync(join(repo.dir, ".git", "catchup-bench", "state"));
    expect(state.filter((n) => n.includes(".using-"))).toEqual([]);

    // A server seeded its own way: the cursors come from the command line, and the report says so.
    const second = await bench(["--ref", "main=v1", "--ref", "head=HEAD", "--cursor", "2", "--latest", "4"]);
    expect(second.report).toMatch(
      /Not measured: .*anything beyond the server's own data \(cursors given on the command line: --cursor 2 --latest 4\)/,
    );
    expect(section(second.report, "Targets")).toMatch(
      /\| main \| baseline \| Node v\S+ \| v1 = [0-9a-f]{12} \| \d+\.\d s \(cached\) \| \d+\.\d s \(cached\) \|/,
    );
    expect(builds()).toBe(2);
    expect(second.stderr).toMatch(/main \([0-9a-f]{12}\): build cached, nothing to build/);
    expect(second.stderr).toMatch(/head \([0-9a-f]{12}\): build cached, nothing to build/);
    expect(second.stderr).not.toMatch(/building in/);
    expect(variant(second.results, "main")).toMatchObject({ commit: repo.v1, buildCached: true });
    expect(chunksOf(second.results, "main")).toEqual([3]);
    expect(chunksOf(second.results, "head")).toEqual([1]);
  }, 240_000);

  it("measures the working tree with its uncommitted edit as WORKTREE", async () => {
    writeFileSync(join(repo.dir, "chunks.mjs"), chunksModule(2));
    writeFileSync(join(repo.dir, "untracked.txt"), "not committed\n");
    const statusBefore = git(repo.dir, "status", "--porcelain");
    try {
      const { results } = await bench(["--ref", "head=HEAD", "--ref", "wt=WORKTREE"]);
      expect(chunksOf(results, "head")).toEqual([1]);
      expect(chunksOf(results, "wt")).toEqual([2]);
      const wt = variant(results, "wt");
      expect(wt).toMatchObject({ ref: "WORKTREE", commit: repo.v2, dirty: true, buildCached: false });
      expect(wt?.diffDigest).toMatch(/^[0-9a-f]{64}$/);
      // The untracked file is part of the measured tree; the user's index and files are untouched.
      expect(existsSync(join(wt?.checkout as string, "untracked.txt"))).toBe(true);
      expect(git(repo.dir, "status", "--porcelain")).toBe(statusBefore);
      expect(variant(results, "head")).toMatchObject({ dirty: false, diffDigest: null, buildCached: true });
    } finally {
      git(repo.dir, "checkout", "--", "chunks.mjs");
      rmSync(join(repo.dir, "untracked.txt"));
    }
  }, 240_000);

  it("swaps one file from another revision into the candidate's tree for the baseline", async () => {
    const { results } = await bench(["--ref", "head=HEAD", "--swap-from", "v1", "--swap", "chunks.mjs"]);
    expect(results.variants.map((v) => v.name)).toEqual(["v1", "head"]);
    expect(chunksOf(results, "v1")).toEqual([3]);
    expect(chunksOf(results, "head")).toEqual([1]);
    const base = variant(results, "v1");
    const head = variant(results, "head");
    expect(base).toMatchObject({ commit: repo.v2, swap: { from: "v1", commit: repo.v1, files: ["chunks.mjs"] } });
    // Only the swapped file differs between what the two variants ran (v1 also lacks README: not swapped, so kept).
    const changed = git(
      repo.dir,
      "diff",
      "--name-only",
      head?.checkoutCommit as string,
      base?.checkoutCommit as string,
    );
    expect(changed.split("\n")).toEqual(["chunks.mjs"]);
    expect(existsSync(join(base?.checkout as string, "README"))).toBe(true);
    expect(readFileSync(join(base?.checkout as string, "chunks.mjs"), "utf8")).toBe(chunksModule(3));
  }, 240_000);
});
