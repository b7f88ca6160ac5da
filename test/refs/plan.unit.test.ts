// The --repo/--ref/--swap flags: what a valid set resolves to, and one clear usage error naming the
// flag for each misuse.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { defaultCacheBytes, diskRefusal, estimateCheckout } from "../../scripts/refs/cache-size.js";
import {
  checkoutsToEvict,
  DEFAULT_KEEP_CHECKOUTS,
  describeRef,
  lastLines,
  parseCleanCheckouts,
  parseRefFlags,
  refVariantNames,
} from "../../scripts/refs/checkout-plan.js";
import { gitFailureMessage } from "../../scripts/refs/git-failure.js";
import type { RefRecord } from "../../scripts/results/ref.js";
import { UsageError } from "../../scripts/util/usage.js";

const base = { repo: "/r", start: "node dist/server.js --port {port}" };

function usage(raw: Record<string, unknown>): string {
  try {
    parseRefFlags(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error("expected a UsageError");
}

describe("parseRefFlags", () => {
  it("is null without any refs flag", () => {
    expect(parseRefFlags({ target: ["a=b"] })).toBeNull();
  });

  it("takes two or more refs, first the baseline, WORKTREE allowed", () => {
    const req = parseRefFlags({ ...base, ref: ["main=origin/main", "head=WORKTREE"], build: "npm run build" });
    expect(req).toMatchObject({
      repo: "/r",
      refs: [
        { name: "main", rev: "origin/main" },
        { name: "head", rev: "WORKTREE" },
      ],
      build: "npm run build",
      swap: null,
    });
    expect(refVariantNames(req as NonNullable<typeof req>)).toEqual(["main", "head"]);
  });

  it("names the swapped baseline after --swap-from's revision or its NAME=", () => {
    const req = parseRefFlags({ ...base, ref: "head=HEAD", "swap-from": "HEAD~1", swap: ["a.ts,./b/c.ts", "a.ts"] });
    expect(req?.swap).toEqual({ name: "HEAD-1", from: "HEAD~1", files: ["a.ts", "b/c.ts"] });
    expect(refVariantNames(req as NonNullable<typeof req>)).toEqual(["HEAD-1", "head"]);
    const named = parseRefFlags({ ...base, ref: "head=HEAD", "swap-from": "main=origin/main", swap: "x.ts" });
    expect(named?.swap).toMatchObject({ name: "main", from: "origin/main" });
  });

  it("refuses each misuse with one line naming the flag", () => {
    expect(usage({ ref: ["a=b", "c=d"] })).toMatch(/^--ref needs --repo/);
    expect(usage({ build: "x" })).toMatch(/^--build needs --repo/);
    expect(usage({ repo: "/r", ref: ["a=b", "c=d"] })).toMatch(/^--repo needs --start/);
    expect(usage({ ...base, ref: "a=b" })).toMatch(/--ref NAME=REV at least twice/);
    expect(usage({ ...base })).toMatch(/--ref NAME=REV at least twice/);
    expect(usage({ ...base, ref: ["a=b", "noequals"] })).toMatch(/^--ref must be NAME=REV/);
    expect(usage({ ...base, ref: ["a=b", "c=-rf"] })).toMatch(/^--ref needs a git revision/);
    expect(usage({ ...base, ref: ["a=b", "a=c"] })).toMatch(/^--ref names must be unique \(a given twice/);
    expect(usage({ ...base, ref: ["a=b", "c=d"], target: ["x=y"] })).toMatch(/^--repo and --target cannot/);
    expect(usage({ ...base, ref: ["a=b", "c=d"], variants: "legacy" })).toMatch(/^--repo and --variants cannot/);
    expect(usage({ ...base, ref: ["a=b", "c=d"], "build-timeout-ms": "5000" })).toMatch(
      /^--build-timeout-ms needs --build/,
    );
    expect(usage({ ...base, ref: "a=b", swap: "x" })).toMatch(/^--swap needs --swap-from/);
    expect(usage({ ...base, ref: "a=b", "swap-from": "v1" })).toMatch(/^--swap-from needs --swap/);
    expect(usage({ ...base, ref: ["a=b", "c=d"], "swap-from": "v1", swap: "x" })).toMatch(
      /^--swap-from needs exactly one --ref/,
    );
    expect(usage({ ...base, ref: "a=b", "swap-from": "WORKTREE", swap: "x" })).toMatch(/^--swap-from takes a git/);
    expect(usage({ ...base, ref: "a=b", "swap-from": "v1", swap: "/etc/passwd" })).toMatch(/^--swap takes file paths/);
    expect(usage({ ...base, ref: "a=b", "swap-from": "v1", swap: "../x" })).toMatch(/^--swap takes file paths/);
    expect(usage({ ...base, ref: "v1=HEAD", "swap-from": "v1", swap: "x" })).toMatch(/--swap-from NAME=REV/);
    expect(usage({ "keep-checkouts": "3" })).toMatch(/^--keep-checkouts needs --repo/);
    expect(usage({ ...base, ref: ["a=b", "c=d"], "keep-checkouts": "0" })).toMatch(
      /^--keep-checkouts must be an integer from 1 to 1000/,
    );
  });

  it("keeps 10 checkouts unless --keep-checkouts says otherwise", () => {
    expect(parseRefFlags({ ...base, ref: ["a=b", "c=d"] })?.keepCheckouts).toBe(DEFAULT_KEEP_CHECKOUTS);
    expect(DEFAULT_KEEP_CHECKOUTS).toBe(10);
    expect(parseRefFlags({ ...base, ref: ["a=b", "c=d"], "keep-checkouts": "2" })?.keepCheckouts).toBe(2);
  });

  it("gives the bench config one command target per variant, to be placed in its checkout", () => {
    const config = resolveConfig({ ...base, ref: ["main=v1", "head=HEAD"] });
    expect(config.targets.targets).toEqual([
      { name: "main", kind: "command", command: base.start },
      { name: "head", kind: "command", command: base.start },
    ]);
    expect(config.targets.refs?.refs.map((r) => r.rev)).toEqual(["v1", "HEAD"]);
    expect(resolveConfig({}).targets.refs).toBeNull();
  });
});

describe("describeRef", () => {
  const record: RefRecord = {
    ref: "WORKTREE",
    commit: "0123456789abcdef0123456789abcdef01234567",
    dirty: true,
    diffDigest: "f".repeat(64),
    swap: null,
    checkoutCommit: "a".repeat(40),
    checkout: "/r/.git/catchup-bench/worktrees/a",
    build: "npm run build",
    buildMs: 1234,
    buildLog: "/r/.git/catchup-bench/logs/a.log",
    buildCached: true,
  };

  it("names the revision, the commit, the uncommitted changes and the reused build", () => {
    expect(describeRef(record)).toBe(
      "ref WORKTREE = 0123456789ab + uncommitted changes (sha256 ffffffffffff); built in 1.2 s (cached), log /r/.git/catchup-bench/logs/a.log",
    );
    expect(describeRef({ ...record, dirty: false, diffDigest: null, build: null, buildMs: null })).toBe(
      "ref WORKTREE = 0123456789ab",
    );
    expect(describeRef({ ...record, dirty: false, checkoutMs: 8000, checkoutCached: false })).toBe(
      "ref WORKTREE = 0123456789ab; checked out in 8.0 s; built in 1.2 s (cached), log /r/.git/catchup-bench/logs/a.log",
    );
  });

  it("names the swapped files and where they came from", () => {
    const swapped = {
      ...record,
      dirty: false,
      build: null,
      swap: { from: "main", commit: "b".repeat(40), files: ["x.ts"] },
    };
    expect(describeRef(swapped)).toBe(`ref WORKTREE = 0123456789ab; x.ts from main = ${"b".repeat(12)}`);
  });
});

describe("lastLines", () => {
  it("keeps the last non-empty lines", () => {
    expect(lastLines("a\n\nb\nc\n\n", 2)).toEqual(["b", "c"]);
  });
});

describe("checkoutsToEvict", () => {
  const c = (key: string, lastUsedMs: number, busy = false, bytes = 0) => ({ key, lastUsedMs, busy, bytes });
  const count = (keep: number) => ({ keep, maxBytes: Number.POSITIVE_INFINITY });

  it("removes the least recently used beyond keep, counting this run's checkouts first", () => {
    const cached = [c("a", 1), c("b", 4), c("c", 3), c("d", 2), c("now", 0)];
    expect(checkoutsToEvict(cached, count(3), new Set(["now"])).sort()).toEqual(["a", "d"]);
    expect(checkoutsToEvict(cached, count(10), new Set(["now"]))).toEqual([]);
  });

  it("never removes this run's or a busy checkout, even beyond keep", () => {
    const cached = [c("x", 1), c("y", 2, true), c("z", 3)];
    expect(checkoutsToEvict(cached, count(1), new Set(["x", "z"]))).toEqual([]);
    expect(checkoutsToEvict(cached, count(1), new Set(["z"]))).toEqual(["x"]);
  });

  it("removes the least recently used until the bytes fit, oldest first, whatever their size", () => {
    const cached = [c("old", 1, false, 100), c("mid", 2, false, 500), c("new", 3, false, 100), c("now", 4, false, 300)];
    const bound = (maxBytes: number) => ({ keep: 10, maxBytes });
    expect(checkoutsToEvict(cached, bound(1000), new Set(["now"]))).toEqual([]);
    expect(checkoutsToEvict(cached, bound(900), new Set(["now"]))).toEqual(["old"]);
    expect(checkoutsToEvict(cached, bound(800), new Set(["now"]))).toEqual(["old", "mid"]);
    // This run's checkout stays even when it alone is above the bound; a busy one too.
    expect(checkoutsToEvict([...cached, c("busy", 0, true, 50)], bound(1), new Set(["now"]))).toEqual([
      "old",
      "mid",
      "new",
    ]);
  });
});

describe("the cache's bound and refusal", () => {
  it("defaults to half of the free disk plus the cache", () => {
    expect(defaultCacheBytes(10e9, 2e9)).toBe(6e9);
  });

  it("refuses with one line when the disk cannot hold the new checkouts, naming the command that frees space", () => {
    const need = estimateCheckout([560e6, 120e6], 5e6);
    expect(need.bytes).toBe(560e6);
    const o = { need, checkouts: 2, cacheRoot: "/r/.git/catchup-bench", repo: "/r" };
    expect(diskRefusal({ ...o, freeBytes: 2e9 })).toBeNull();
    expect(diskRefusal({ ...o, freeBytes: 1e9 })).toBe(
      'the disk holding /r/.git/catchup-bench has 1.0 GB free, and 2 new checkouts of /r need about 1.1 GB (560 MB each: the largest checkout in the cache, with its build); free space (`catchup-bench bench --repo "/r" --clean-checkouts` removes its cached checkouts) and run again',
    );
    expect(estimateCheckout([], 5e6)).toEqual({ bytes: 5e6, basis: "the commit's files, before any build" });
  });

  it("parses --checkout-cache-gb in GB and --clean-checkouts with --repo only", () => {
    expect(parseRefFlags({ ...base, ref: ["a=b", "c=d"] })?.checkoutCacheBytes).toBeNull();
    expect(parseRefFlags({ ...base, ref: ["a=b", "c=d"], "checkout-cache-gb": "2.5" })?.checkoutCacheBytes).toBe(2.5e9);
    expect(usage({ ...base, ref: ["a=b", "c=d"], "checkout-cache-gb": "0" })).toMatch(
      /^--checkout-cache-gb must be a number from 0\.001/,
    );
    expect(parseCleanCheckouts({ repo: "../r", "clean-checkouts": true })).toBe("../r");
    expect(parseCleanCheckouts({ repo: "../r" })).toBeNull();
    expect(() => parseCleanCheckouts({ "clean-checkouts": true })).toThrow(/^--clean-checkouts needs --repo/);
    expect(() => parseCleanCheckouts({ repo: "r", "clean-checkouts": true, build: "x" })).toThrow(
      /^--clean-checkouts takes only --repo PATH .*got --build/,
    );
  });
});

describe("gitFailureMessage", () => {
  it("shows git's last stderr lines and, for missing objects, what to try", () => {
    const stderr =
      "Preparing worktree (detached HEAD 8824f8f24)\nerror: unable to read sha1 file of a.ts (0123)\nfatal: Could not reset index file to revision 'HEAD'.\n";
    const m = gitFailureMessage(["worktree", "add", "/w"], "/r", 128, stderr);
    expect(m.split("\n").slice(0, 4)).toEqual([
      "git worktree add /w in /r failed (exit 128); git said:",
      "  Preparing worktree (detached HEAD 8824f8f24)",
      "  error: unable to read sha1 file of a.ts (0123)",
      "  fatal: Could not reset index file to revision 'HEAD'.",
    ]);
    expect(m.split("\n")[4]).toMatch(/^The repository lacks objects .*`git -C "\/r" fetch --refetch`/);
    expect(gitFailureMessage(["status"], "/r", 1, "")).toBe("git status in /r failed (exit 1) (git printed nothing)");
  });
});
