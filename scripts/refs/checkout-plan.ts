// The --repo/--ref/--swap flags -> a RefsRequest, and the pure parts of a refs run: the cache layout,
// cache keys, and what a variant records. No git, no files, no processes (see ./checkout.ts).
import { createHash } from "node:crypto";
import { basename, dirname, join, posix } from "node:path";
import type { RefRecord } from "../results/ref.js";
import { intFlag, listFlag, numberFlag, UsageError } from "../util/usage.js";

/** The REV that stands for the working tree as it is, uncommitted and untracked (not ignored) files included. */
export const WORKTREE = "WORKTREE";

/** The flags of this feature, as typed; any of them without --repo is a usage error. */
export const REFS_FLAGS = [
  "repo",
  "ref",
  "build",
  "start",
  "swap-from",
  "swap",
  "build-timeout-ms",
  "keep-checkouts",
  "checkout-cache-gb",
  "clean-checkouts",
] as const;

export const DEFAULT_BUILD_TIMEOUT_MS = 30 * 60_000;
/** Checkouts (each with its build) kept in a repository's cache; older ones go, least recently used first. */
export const DEFAULT_KEEP_CHECKOUTS = 10;

const NAME_RE = /^[A-Za-z0-9._-]{1,40}$/;

export interface RefSpec {
  /** The variant name. */
  name: string;
  /** A git revision, or WORKTREE. */
  rev: string;
}

export interface SwapSpec {
  /** The variant name of the swapped baseline. */
  name: string;
  /** The revision the named files are taken from. */
  from: string;
  /** Repository-relative paths (POSIX separators). */
  files: string[];
}

export interface RefsRequest {
  /** The repository path as given (resolved against the working directory by the caller). */
  repo: string;
  /** Without swap: first is the baseline. With swap: exactly one, the candidate. */
  refs: RefSpec[];
  build: string | null;
  /** The start command template ({port}, {db}), run with the checkout as its working directory. */
  start: string;
  buildTimeoutMs: number;
  swap: SwapSpec | null;
  /** After the checkouts are ready, the cache keeps this many (this run's included), least recently used go. */
  keepCheckouts: number;
  /** ...and at most this many bytes (--checkout-cache-gb); null: half of the free disk plus the cache's own size. */
  checkoutCacheBytes: number | null;
}

type RawFlags = Record<string, unknown>;
const given = (raw: RawFlags, flag: string) => raw[flag] !== undefined;

function once(flag: string, value: unknown): string {
  if (Array.isArray(value)) throw new UsageError(`--${flag} may be given once (got ${value.length} values)`);
  const s = String(value).trim();
  if (s === "") throw new UsageError(`--${flag} must not be empty`);
  return s;
}

/** A revision as git would take it; a leading "-" would be read by git as an option. */
function revision(flag: string, rev: string, shown: string): string {
  if (rev === "" || rev.startsWith("-") || /\s/.test(rev)) {
    throw new UsageError(
      `--${flag} needs a git revision (a branch, tag, commit, HEAD~1, ...) or ${WORKTREE}, without spaces or a leading "-" (got ${JSON.stringify(shown)})`,
    );
  }
  return rev;
}

function refSpec(value: string): RefSpec {
  const eq = value.indexOf("=");
  const name = eq > 0 ? value.slice(0, eq).trim() : "";
  if (!NAME_RE.test(name)) {
    throw new UsageError(
      `--ref must be NAME=REV with NAME of letters, digits, . _ - and REV a git revision or ${WORKTREE} (got ${JSON.stringify(value)})`,
    );
  }
  return { name, rev: revision("ref", value.slice(eq + 1).trim(), value) };
}

/** A repository-relative file path, normalised; absolute paths and paths leaving the repository are refused. */
export function repoPath(flag: string, file: string): string {
  const p = posix.normalize(file.replace(/\\/g, "/")).replace(/^\.\//, "");
  if (p === "" || p === "." || p.startsWith("/") || p === ".." || p.startsWith("../") || p.endsWith("/")) {
    throw new UsageError(`--${flag} takes file paths relative to the repository root (got ${JSON.stringify(file)})`);
  }
  return p;
}

/** "main" stays "main"; "HEAD~1" becomes "HEAD-1": a variant name derived from a revision. */
function nameFromRev(rev: string): string {
  const n = rev.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 40);
  return NAME_RE.test(n) ? n : "baseline";
}

function swapSpec(raw: RawFlags): SwapSpec | null {
  if (!given(raw, "swap-from") && !given(raw, "swap")) return null;
  if (!given(raw, "swap"))
    throw new UsageError("--swap-from needs --swap FILE... (the files taken from that revision)");
  if (!given(raw, "swap-from")) throw new UsageError("--swap needs --swap-from REV (the revision the files come from)");
  const value = once("swap-from", raw["swap-from"]);
  const eq = value.indexOf("=");
  const named = eq > 0 && NAME_RE.test(value.slice(0, eq));
  const from = revision("swap-from", named ? value.slice(eq + 1) : value, value);
  if (from === WORKTREE) {
    throw new UsageError(`--swap-from takes a git revision, not ${WORKTREE} (the candidate may be ${WORKTREE})`);
  }
  const files = [...new Set(listFlag("swap", raw.swap).map((f) => repoPath("swap", f)))];
  return { name: named ? value.slice(0, eq) : nameFromRev(from), from, files };
}

/**
 * Parses the refs flags; null when none is given. Every misuse is a UsageError naming the flag:
 * a refs flag without --repo, --repo without --ref or --start, --repo with --target/--variants,
 * a bad NAME=REV, duplicate names, or the wrong number of --ref for the mode.
 */
export function parseRefFlags(raw: RawFlags): RefsRequest | null {
  const present = REFS_FLAGS.filter((f) => given(raw, f));
  if (present.length === 0) return null;
  if (!given(raw, "repo")) {
    throw new UsageError(`--${present[0]} needs --repo PATH (the git repository whose revisions are measured)`);
  }
  for (const other of ["target", "variants"]) {
    if (given(raw, other)) {
      throw new UsageError(`--repo and --${other} cannot be combined (--ref names the variants of a --repo run)`);
    }
  }
  const repo = once("repo", raw.repo);
  if (!given(raw, "start")) {
    throw new UsageError(
      "--repo needs --start COMMAND (run in each checkout; {port} and {db} are filled in, e.g. --start 'node dist/server.js --port {port} --db {db}')",
    );
  }
  const start = once("start", raw.start);
  const build = given(raw, "build") ? once("build", raw.build) : null;
  const buildTimeoutMs = given(raw, "build-timeout-ms")
    ? intFlag("build-timeout-ms", raw["build-timeout-ms"], 1000, 24 * 3_600_000)
    : DEFAULT_BUILD_TIMEOUT_MS;
  if (given(raw, "build-timeout-ms") && build === null) {
    throw new UsageError("--build-timeout-ms needs --build COMMAND");
  }
  const keepCheckouts = given(raw, "keep-checkouts")
    ? intFlag("keep-checkouts", raw["keep-checkouts"], 1, 1000)
    : DEFAULT_KEEP_CHECKOUTS;
  if (given(raw, "clean-checkouts")) {
    throw new UsageError("--clean-checkouts takes only --repo PATH (it removes the cached checkouts and runs nothing)");
  }
  const checkoutCacheBytes = given(raw, "checkout-cache-gb")
    ? Math.round(numberFlag("checkout-cache-gb", raw["checkout-cache-gb"], 0.001, 1_000_000) * 1e9)
    : null;
  const swap = swapSpec(raw);
  const values = given(raw, "ref") ? (Array.isArray(raw.ref) ? raw.ref : [raw.ref]).map(String) : [];
  const refs = values.map(refSpec);
  if (swap) {
    if (refs.length !== 1) {
      throw new UsageError(
        `--swap-from needs exactly one --ref NAME=REV, the candidate; the baseline is its tree with the --swap files from ${swap.from} (got ${refs.length} --ref)`,
      );
    }
  } else if (refs.length < 2) {
    throw new UsageError(
      `--repo needs --ref NAME=REV at least twice, the first the baseline (or once with --swap-from) (got ${refs.length})`,
    );
  }
  const names = [...(swap ? [swap.name] : []), ...refs.map((r) => r.name)];
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) {
    throw new UsageError(
      swap && dup === swap.name
        ? `--swap-from's variant name ${dup} is also a --ref name; name it with --swap-from NAME=REV`
        : `--ref names must be unique (${dup} given twice; use --aa to compare a version with itself)`,
    );
  }
  return { repo, refs, build, start, buildTimeoutMs, swap, keepCheckouts, checkoutCacheBytes };
}

/**
 * `--repo R --clean-checkouts`: the repository path, or null without --clean-checkouts. It runs no
 * bench, so another refs flag beside it is a UsageError.
 */
export function parseCleanCheckouts(raw: RawFlags): string | null {
  if (!given(raw, "clean-checkouts") || raw["clean-checkouts"] === false) return null;
  if (!given(raw, "repo"))
    throw new UsageError("--clean-checkouts needs --repo PATH (the repository whose cache to remove)");
  const other = REFS_FLAGS.find((f) => f !== "repo" && f !== "clean-checkouts" && given(raw, f));
  if (other) {
    throw new UsageError(
      `--clean-checkouts takes only --repo PATH (it removes the cached checkouts and runs nothing; got --${other})`,
    );
  }
  return once("repo", raw.repo);
}

/** The variant names in order, baseline first (the swapped baseline, when swapping). */
export function refVariantNames(req: RefsRequest): string[] {
  return [...(req.swap ? [req.swap.name] : []), ...req.refs.map((r) => r.name)];
}

/**
 * A checkout's key in the cache: its commit, and with --build the build command's digest, so a
 * changed build command builds in a clean checkout of its own and never touches another build.
 */
export function checkoutKey(commit: string, build: string | null): string {
  return build === null ? commit : `${commit}-${short(build)}`;
}

/** The commit a cache key checks out. */
export const keyCommit = (key: string): string => key.split("-")[0] as string;

/** Where a repository's cache lives: inside its git directory, so it never shows as untracked files. */
export interface CacheLayout {
  root: string;
  /** One checkout per tree and build command: <root>/worktrees/<commit>[-<build command's digest>]. */
  worktree: (key: string) => string;
  /** Present once the checkout is complete (JSON: when, and how long it took); its mtime is its last use. */
  checkoutDone: (key: string) => string;
  /** The checkout's size on disk in bytes, measured once it was checked out and built. */
  size: (key: string) => string;
  /** Present (holding the pid) while a build runs; left behind by a killed build. */
  building: (key: string) => string;
  /** Present (holding the pid) while a run prepares this checkout. */
  lock: (key: string) => string;
  /** One per run that uses this checkout (it runs servers from it); stale once that pid is gone. */
  using: (key: string, pid: number) => string;
  /** The finished build of this checkout (JSON, naming its command); absent while it builds or if it failed. */
  buildRecord: (key: string) => string;
  /** The build's log (the key names the build command). */
  buildLog: (key: string) => string;
  tmp: string;
}

const short = (s: string): string => createHash("sha256").update(s).digest("hex").slice(0, 12);

/**
 * Where the states seeded from a checkout (bench/seed/seed-phase.ts) are kept: beside it in the cache,
 * <root>/templates/<key>/, so they go with it (removeCheckout, --clean-checkouts).
 */
export function templatesDirOf(checkout: string): string {
  return join(dirname(dirname(checkout)), "templates", basename(checkout));
}

export function cacheLayout(gitCommonDir: string): CacheLayout {
  const root = join(gitCommonDir, "catchup-bench");
  return {
    root,
    worktree: (key) => join(root, "worktrees", key),
    checkoutDone: (key) => join(root, "state", `${key}.checkout`),
    size: (key) => join(root, "state", `${key}.size`),
    building: (key) => join(root, "state", `${key}.building`),
    lock: (key) => join(root, "state", `${key}.lock`),
    using: (key, pid) => join(root, "state", `${key}.using-${pid}`),
    buildRecord: (key) => join(root, "builds", `${key}.json`),
    buildLog: (key) => join(root, "logs", `${key}.log`),
    tmp: join(root, "tmp"),
  };
}

/** A finished checkout in the cache, as eviction sees it. */
export interface CachedCheckout {
  key: string;
  /** When a run last used it (ms since the epoch). */
  lastUsedMs: number;
  /** A live run other than this one uses or prepares it. */
  busy: boolean;
  /** Its size on disk (0 when not measured). */
  bytes: number;
}

/** What the cache may hold: a number of checkouts and a number of bytes. */
export interface CacheBound {
  keep: number;
  maxBytes: number;
}

/**
 * The checkouts to remove, least recently used first, until at most `keep` remain and they hold at
 * most `maxBytes`. One this run uses (`current`) or a busy one is never removed (so the cache may
 * stay above the bound); both count.
 */
export function checkoutsToEvict(cached: CachedCheckout[], bound: CacheBound, current: ReadonlySet<string>): string[] {
  const stays = (c: CachedCheckout) => current.has(c.key) || c.busy;
  let count = cached.length;
  let bytes = cached.reduce((sum, c) => sum + c.bytes, 0);
  const evict: string[] = [];
  const oldestFirst = cached
    .filter((c) => !stays(c))
    .sort((a, b) => a.lastUsedMs - b.lastUsedMs || b.key.localeCompare(a.key));
  for (const c of oldestFirst) {
    if (count <= bound.keep && bytes <= bound.maxBytes) break;
    evict.push(c.key);
    count--;
    bytes -= c.bytes;
  }
  return evict;
}

/** What a finished build left for the next run (so an unchanged checkout is not built again). */
export interface BuildRecord {
  command: string;
  buildMs: number;
  log: string;
  finishedAt: string;
}

/** The report's words for a variant measured by ref: "ref main = 1a2b3c4d5e6f; checked out in 0.4 s; built in 1.2 s (cached), log …". */
export function describeRef(r: RefRecord): string {
  const parts = [`ref ${r.ref} = ${r.commit.slice(0, 12)}`];
  if (r.dirty) parts[0] += ` + uncommitted changes (sha256 ${r.diffDigest?.slice(0, 12)})`;
  if (r.swap) parts.push(`${r.swap.files.join(", ")} from ${r.swap.from} = ${r.swap.commit.slice(0, 12)}`);
  if (typeof r.checkoutMs === "number") {
    parts.push(`checked out in ${(r.checkoutMs / 1000).toFixed(1)} s${r.checkoutCached ? " (cached)" : ""}`);
  }
  if (r.build !== null && r.buildMs !== null) {
    parts.push(`built in ${(r.buildMs / 1000).toFixed(1)} s${r.buildCached ? " (cached)" : ""}, log ${r.buildLog}`);
  }
  return parts.join("; ");
}

/** The last n non-empty lines of a build log, for an error message. */
export function lastLines(text: string, n: number): string[] {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "")
    .slice(-n);
}
