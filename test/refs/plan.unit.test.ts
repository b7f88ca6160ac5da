// The --repo/--ref/--swap flags: what a valid set resolves to, and one clear usage error naming the
// flag for each misuse.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/options/bench-config.js";
import {
  checkoutsToEvict,
  DEFAULT_KEEP_CHECKOUTS,
  describeRef,
  lastLines,
  parseRefFlags,
  refVariantNames,
} from "../../scripts/refs/plan.js";
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
  const c = (key: string, lastUsedMs: number, busy = false) => ({ key, lastUsedMs, busy });

  it("removes the least recently used beyond keep, counting this run's checkouts first", () => {
    const cached = [c("a", 1), c("b", 4), c("c", 3), c("d", 2), c("now", 0)];
    expect(checkoutsToEvict(cached, 3, new Set(["now"])).sort()).toEqual(["a", "d"]);
    expect(checkoutsToEvict(cached, 10, new Set(["now"]))).toEqual([]);
  });

  it("never removes this run's or a busy checkout, even beyond keep", () => {
    const cached = [c("x", 1), c("y", 2, true), c("z", 3)];
    expect(checkoutsToEvict(cached, 1, new Set(["x", "z"]))).toEqual([]);
    expect(checkoutsToEvict(cached, 1, new Set(["z"]))).toEqual(["x"]);
  });
});
