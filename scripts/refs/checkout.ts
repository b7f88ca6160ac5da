// A refs run's checkouts: each revision resolved to a full commit, checked out with
// `git worktree add --detach` into <git-common-dir>/catchup-bench/worktrees/<commit>, built once per
// commit and build command (a later run with the same trees builds nothing). WORKTREE is the working
// tree as it is: its files (untracked ones too, ignored ones not) are written into a tree object from
// a private index, committed on top of HEAD as a synthetic commit with fixed metadata, so the same
// changes give the same commit and reuse the same checkout and build. The swapped baseline is the
// candidate's tree with only the named files replaced by their version in --swap-from.
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "../../common/atomic-file.js";
import type { RefRecord } from "../results/ref.js";
import { isAlive } from "../sampler/procfs.js";
import { UsageError } from "../util/usage.js";
import { runBuild } from "./build.js";
import { bytesText, cacheSummary, defaultCacheBytes, diskRefusal, estimateCheckout } from "./cache-size.js";
import {
  type BuildRecord,
  type CacheBound,
  type CachedCheckout,
  type CacheLayout,
  cacheLayout,
  checkoutKey,
  checkoutsToEvict,
  keyCommit,
  type RefsRequest,
  templatesDirOf,
  WORKTREE,
} from "./checkout-plan.js";
import { freeBytes, treeBytes } from "./disk.js";
import { git, RefsError, requireGit } from "./git.js";

export { RefsError } from "./git.js";

/** A variant ready to start: its checkout directory and what results.json records about it. */
export interface PreparedRef {
  name: string;
  dir: string;
  record: RefRecord;
}

/** Fixed identity and dates: a synthetic commit's hash then depends only on its tree and parent. */
const SYNTHETIC_ENV = {
  GIT_AUTHOR_NAME: "catchup-bench",
  GIT_AUTHOR_EMAIL: "catchup-bench@localhost",
  GIT_COMMITTER_NAME: "catchup-bench",
  GIT_COMMITTER_EMAIL: "catchup-bench@localhost",
  GIT_AUTHOR_DATE: "2000-01-01T00:00:00+0000",
  GIT_COMMITTER_DATE: "2000-01-01T00:00:00+0000",
};

export interface Repo {
  top: string;
  layout: CacheLayout;
}

/** The repository at path: its top level and cache. A missing directory or a non-repository is a UsageError. */
export function openRepo(path: string): Repo {
  const abs = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new UsageError(`--repo ${abs}: no such directory`);
  requireGit();
  const top = git(abs, ["rev-parse", "--show-toplevel"], { allowFail: true });
  if (!top) throw new UsageError(`--repo ${abs} is not a git repository (or is a bare one: a working tree is needed)`);
  const common = git(abs, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  return { top, layout: cacheLayout(common) };
}

/** The full hash of rev's commit; an unknown revision is a UsageError naming the flag. */
function resolveCommit(repo: Repo, flag: string, rev: string): string {
  const commit = git(repo.top, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`], {
    allowFail: true,
  });
  if (!commit) throw new UsageError(`${flag}: unknown revision ${JSON.stringify(rev)} in ${repo.top}`);
  return commit;
}

function syntheticCommit(repo: Repo, tree: string, parent: string, message: string): string {
  return git(repo.top, ["commit-tree", "--no-gpg-sign", tree, "-p", parent, "-m", message], { env: SYNTHETIC_ENV });
}

/** A private index file (the user's index is never written), removed by the caller. */
function privateIndex(repo: Repo): string {
  mkdirSync(repo.layout.tmp, { recursive: true });
  return join(repo.layout.tmp, `index-${process.pid}-${Date.now()}`);
}

interface Resolved {
  commit: string;
  checkoutCommit: string;
  dirty: boolean;
  diffDigest: string | null;
}

/** WORKTREE: HEAD plus every change in the working tree, untracked (not ignored) files included. */
function resolveWorktree(repo: Repo): Resolved {
  const head = git(repo.top, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { allowFail: true });
  if (!head) throw new UsageError(`--ref ...=${WORKTREE}: ${repo.top} has no commit yet (HEAD is unborn)`);
  const index = privateIndex(repo);
  try {
    const real = git(repo.top, ["rev-parse", "--path-format=absolute", "--git-path", "index"]);
    if (existsSync(real)) copyFileSync(real, index); // its stat cache makes `add -A` fast
    const env = { GIT_INDEX_FILE: index };
    git(repo.top, ["add", "-A", "--", "."], { env });
    const tree = git(repo.top, ["write-tree"], { env });
    if (tree === git(repo.top, ["rev-parse", `${head}^{tree}`])) {
      return { commit: head, checkoutCommit: head, dirty: false, diffDigest: null };
    }
    const diff = git(repo.top, ["diff", "--binary", "--no-color", "--no-ext-diff", head, tree], { raw: true });
    return {
      commit: head,
      checkoutCommit: syntheticCommit(repo, tree, head, "catchup-bench: WORKTREE"),
      dirty: true,
      diffDigest: createHash("sha256").update(diff).digest("hex"),
    };
  } finally {
    rmSync(index, { force: true });
  }
}

/** The candidate's tree with only `files` taken from `fromCommit`, as a synthetic commit on the candidate. */
function swappedCommit(repo: Repo, candidate: string, fromRev: string, fromCommit: string, files: string[]): string {
  const index = privateIndex(repo);
  try {
    const env = { GIT_INDEX_FILE: index };
    git(repo.top, ["read-tree", candidate], { env });
    for (const file of files) {
      const entry = git(repo.top, ["ls-tree", "-z", "--full-tree", fromCommit, "--", file]).replace(/\0$/, "");
      const m = /^(\d+) blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
      if (!m || m[3] !== file) {
        throw new UsageError(`--swap ${file}: not a file in ${fromRev} (${fromCommit.slice(0, 12)})`);
      }
      git(repo.top, ["update-index", "--add", "--cacheinfo", `${m[1]},${m[2]},${file}`], { env });
    }
    const tree = git(repo.top, ["write-tree"], { env });
    return syntheticCommit(repo, tree, candidate, `catchup-bench: ${files.join(", ")} from ${fromRev}`);
  } finally {
    rmSync(index, { force: true });
  }
}

const readPid = (file: string): number | null => {
  try {
    const n = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(n) && n > 1 ? n : null;
  } catch {
    return null;
  }
};

/** Removes a checkout from disk and from git's worktree list (its build logs stay). */
export function removeCheckout(repo: Repo, key: string): void {
  const dir = repo.layout.worktree(key);
  git(repo.top, ["worktree", "remove", "--force", "--force", dir], { allowFail: true });
  rmSync(dir, { recursive: true, force: true });
  rmSync(repo.layout.checkoutDone(key), { force: true });
  rmSync(repo.layout.size(key), { force: true });
  rmSync(repo.layout.building(key), { force: true });
  rmSync(repo.layout.buildRecord(key), { force: true });
  rmSync(templatesDirOf(dir), { recursive: true, force: true });
  for (const pid of usersOf(repo, key)) rmSync(repo.layout.using(key, pid), { force: true });
}

/** The pids that left a `using` marker on key (alive or not). */
function usersOf(repo: Repo, key: string): number[] {
  let names: string[] = [];
  try {
    names = readdirSync(join(repo.layout.root, "state"));
  } catch {
    // no state yet
  }
  const prefix = `${key}.using-`;
  return names.filter((n) => n.startsWith(prefix)).map((n) => Number(n.slice(prefix.length)));
}

/** The live runs other than this one that prepare key (its lock) or run servers from it (their using markers). */
export function usersElsewhere(repo: Repo, key: string): number[] {
  const other = (pid: number | null): pid is number => pid !== null && pid > 1 && pid !== process.pid && isAlive(pid);
  return [...new Set([readPid(repo.layout.lock(key)), ...usersOf(repo, key)].filter(other))];
}

const busyElsewhere = (repo: Repo, key: string): boolean => usersElsewhere(repo, key).length > 0;

/** The keys of the cache's checkouts (finished or not). */
export function cachedKeys(repo: Repo): string[] {
  try {
    return readdirSync(join(repo.layout.root, "worktrees"));
  } catch {
    return []; // no cache yet
  }
}

/** A checkout's recorded size (0 when it has none: it is measured after its checkout and build). */
export function bytesOf(repo: Repo, key: string): number {
  try {
    const n = Number(readFileSync(repo.layout.size(key), "utf8").trim());
    return Number.isFinite(n) && n >= 0 ? n : 0;
  } catch {
    return 0;
  }
}

/**
 * Removes finished checkouts beyond the bound (count and bytes), least recently used first (the
 * mtime of their checkout-done file, touched by every run that uses them); never one of `current`
 * or one another live run uses. Returns the keys removed, and what the cache holds afterwards.
 */
function evictOld(
  repo: Repo,
  bound: CacheBound,
  current: ReadonlySet<string>,
): { evicted: string[]; left: CachedCheckout[] } {
  const cached = finishedCheckouts(repo);
  const evicted = checkoutsToEvict(cached, bound, current);
  for (const key of evicted) removeCheckout(repo, key);
  if (evicted.length > 0) git(repo.top, ["worktree", "prune"]);
  return { evicted, left: cached.filter((c) => !evicted.includes(c.key)) };
}

/** The cache's finished checkouts, with their last use, size and whether another run uses them. */
function finishedCheckouts(repo: Repo): CachedCheckout[] {
  const cached: CachedCheckout[] = [];
  for (const key of cachedKeys(repo)) {
    let lastUsedMs: number;
    try {
      lastUsedMs = statSync(repo.layout.checkoutDone(key)).mtimeMs;
    } catch {
      continue; // unfinished: sweepStale's to remove
    }
    cached.push({ key, lastUsedMs, busy: busyElsewhere(repo, key), bytes: bytesOf(repo, key) });
  }
  return cached;
}

/**
 * Cleans what a killed run left: checkouts that never completed and checkouts whose build was
 * interrupted are removed (a run still alive keeps its own), then `git worktree prune` forgets
 * registered worktrees whose directory is gone. Returns the keys removed.
 */
export function sweepStale(repo: Repo): string[] {
  const dir = join(repo.layout.root, "worktrees");
  const removed: string[] = [];
  let keys: string[] = [];
  try {
    keys = readdirSync(dir);
  } catch {
    // no cache yet
  }
  for (const key of keys) {
    const owner = readPid(repo.layout.lock(key));
    if (owner !== null && owner !== process.pid && isAlive(owner)) continue;
    if (!existsSync(repo.layout.checkoutDone(key)) || existsSync(repo.layout.building(key))) {
      removeCheckout(repo, key);
      removed.push(key);
    }
    rmSync(repo.layout.lock(key), { force: true });
  }
  sweepDeadMarkers(repo);
  git(repo.top, ["worktree", "prune"]);
  // Private index files of runs that died (named index-<pid>-...); a live run's stay.
  let tmp: string[] = [];
  try {
    tmp = readdirSync(repo.layout.tmp);
  } catch {
    // none
  }
  for (const name of tmp) {
    const pid = Number(/^index-(\d+)-/.exec(name)?.[1]);
    if (!(pid > 1 && pid !== process.pid && isAlive(pid))) rmSync(join(repo.layout.tmp, name), { force: true });
  }
  return removed;
}

/** Using markers (`<key>.using-<pid>`) of runs that are gone, whatever checkout they name. */
function sweepDeadMarkers(repo: Repo): void {
  let names: string[] = [];
  try {
    names = readdirSync(join(repo.layout.root, "state"));
  } catch {
    return; // no state yet
  }
  for (const name of names) {
    const pid = Number(/\.using-(\d+)$/.exec(name)?.[1]);
    if (!Number.isNaN(pid) && !(pid > 1 && isAlive(pid)))
      rmSync(join(repo.layout.root, "state", name), { force: true });
  }
}

/** This process's using markers, removed when it exits (a killed run's are swept by the next one). */
const ownMarkers = new Set<string>();
let releaseOnExit = false;
function markUsing(file: string): void {
  writeFileSync(file, `${process.pid}\n`);
  ownMarkers.add(file);
  if (releaseOnExit) return;
  releaseOnExit = true;
  process.once("exit", () => {
    for (const f of ownMarkers) rmSync(f, { force: true });
  });
}

interface Checkout {
  dir: string;
  /** How long `git worktree add` took (when this run made it, or as recorded by the run that did). */
  checkoutMs: number | null;
  cached: boolean;
}

function readCheckoutMs(file: string): number | null {
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as { checkoutMs?: unknown };
    return typeof r.checkoutMs === "number" ? r.checkoutMs : null;
  } catch {
    return null; // older caches wrote a bare date
  }
}

function ensureCheckout(repo: Repo, key: string): Checkout {
  const dir = repo.layout.worktree(key);
  if (existsSync(repo.layout.checkoutDone(key)) && existsSync(dir)) {
    return { dir, checkoutMs: readCheckoutMs(repo.layout.checkoutDone(key)), cached: true };
  }
  removeCheckout(repo, key);
  mkdirSync(join(repo.layout.root, "worktrees"), { recursive: true });
  const started = performance.now();
  try {
    git(repo.top, ["worktree", "add", "--detach", "--force", dir, keyCommit(key)]);
  } catch (e) {
    removeCheckout(repo, key); // nothing half checked out stays registered
    throw e;
  }
  const checkoutMs = Math.round(performance.now() - started);
  const done = { checkedOutAt: new Date().toISOString(), checkoutMs };
  writeFileAtomic(repo.layout.checkoutDone(key), `${JSON.stringify(done)}\n`);
  return { dir, checkoutMs, cached: false };
}

export function readRecord(file: string): BuildRecord | null {
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as BuildRecord;
    return typeof r.buildMs === "number" && typeof r.log === "string" ? r : null;
  } catch {
    return null;
  }
}

/** A variant to prepare: its name, the revision asked for, what it resolved to, its --swap. */
interface RefVariant {
  name: string;
  ref: string;
  resolved: Resolved;
  swap: RefRecord["swap"];
}

/** A build of a checkout, done now or cached. */
interface BuildDone {
  buildMs: number;
  log: string;
  cached: boolean;
}

/** Set-up: every --ref resolved, in variant order (the swapped baseline first, when there is one). */
function resolveVariants(repo: Repo, req: RefsRequest): RefVariant[] {
  const resolved = new Map<string, Resolved>();
  for (const r of req.refs) {
    resolved.set(
      r.name,
      r.rev === WORKTREE
        ? resolveWorktree(repo)
        : (() => {
            const commit = resolveCommit(repo, `--ref ${r.name}=${r.rev}`, r.rev);
            return { commit, checkoutCommit: commit, dirty: false, diffDigest: null };
          })(),
    );
  }
  const variants: RefVariant[] = [];
  if (req.swap) {
    const cand = req.refs[0];
    const c = cand ? resolved.get(cand.name) : undefined;
    if (!cand || !c) throw new RefsError("--swap-from needs one --ref");
    const fromCommit = resolveCommit(repo, `--swap-from ${req.swap.from}`, req.swap.from);
    const checkoutCommit = swappedCommit(repo, c.checkoutCommit, req.swap.from, fromCommit, req.swap.files);
    variants.push({
      name: req.swap.name,
      ref: cand.rev,
      resolved: { ...c, checkoutCommit },
      swap: { from: req.swap.from, commit: fromCommit, files: req.swap.files },
    });
  }
  for (const r of req.refs)
    variants.push({ name: r.name, ref: r.rev, resolved: resolved.get(r.name) as Resolved, swap: null });
  return variants;
}

/** Set-up: no other live run is preparing these checkouts. */
function refuseIfLocked(repo: Repo, keys: readonly string[]): void {
  for (const key of keys) {
    const owner = readPid(repo.layout.lock(key));
    if (owner !== null && owner !== process.pid && isAlive(owner)) {
      throw new RefsError(
        `another catchup-bench run (pid ${owner}) is preparing checkout ${key.slice(0, 12)} of ${repo.top}; let it finish first`,
      );
    }
  }
}

/** Run, first step: the checkout of key, fresh or cached, marked in use by this run and most recently used. */
function checkOut(repo: Repo, req: RefsRequest, key: string, label: string, log: (line: string) => void) {
  let checkout = ensureCheckout(repo, key);
  const record = req.build === null ? null : readRecord(repo.layout.buildRecord(key));
  if (req.build !== null && checkout.cached && record?.command !== req.build) {
    // The key names the build command, so a cached checkout without this command's finished
    // build holds an unknown state (a build whose record was lost): a build starts from a clean tree.
    removeCheckout(repo, key);
    checkout = ensureCheckout(repo, key);
  }
  log(
    checkout.cached
      ? `refs: ${label}: checkout cached (${checkout.dir})`
      : `refs: ${label}: checked out in ${seconds(checkout.checkoutMs ?? 0)} (${checkout.dir})`,
  );
  markUsing(repo.layout.using(key, process.pid));
  const now = new Date();
  utimesSync(repo.layout.checkoutDone(key), now, now);
  return { checkout, record };
}

/** Run, second step: the build of a checkout (with --build), unless this command's build is cached. */
async function buildCheckout(
  repo: Repo,
  req: RefsRequest & { build: string },
  key: string,
  label: string,
  checkout: Checkout,
  record: BuildRecord | null,
  log: (line: string) => void,
): Promise<BuildDone> {
  if (record && record.command === req.build) {
    log(`refs: ${label}: build cached, nothing to build (built ${record.finishedAt} in ${seconds(record.buildMs)})`);
    return { buildMs: record.buildMs, log: record.log, cached: true };
  }
  const dir = checkout.dir;
  const logFile = repo.layout.buildLog(key);
  mkdirSync(join(repo.layout.root, "logs"), { recursive: true });
  mkdirSync(join(repo.layout.root, "builds"), { recursive: true });
  log(`refs: ${label}: building in ${dir}: ${req.build} (log ${logFile})`);
  writeFileSync(repo.layout.building(key), `${process.pid}\n`);
  let buildMs: number;
  try {
    buildMs = await runBuild({ command: req.build, cwd: dir, log: logFile, timeoutMs: req.buildTimeoutMs, label });
  } catch (e) {
    // A half-built checkout is not reused: the next run checks it out afresh. Only this build's
    // checkout goes; other commands' builds of the same commit have checkouts of their own.
    removeCheckout(repo, key);
    throw e;
  }
  const done: BuildRecord = { command: req.build, buildMs, log: logFile, finishedAt: new Date().toISOString() };
  writeFileAtomic(repo.layout.buildRecord(key), `${JSON.stringify(done, null, 2)}\n`);
  rmSync(repo.layout.building(key), { force: true });
  writeFileSync(repo.layout.size(key), `${treeBytes(dir)}\n`);
  log(`refs: ${label}: built in ${seconds(buildMs)}`);
  return { buildMs, log: logFile, cached: false };
}

/** Drain: the cache trimmed to its bounds (this run's checkouts kept), and its size said. */
function trimCache(repo: Repo, req: RefsRequest, keys: readonly string[], log: (line: string) => void): void {
  const bound = {
    keep: req.keepCheckouts,
    maxBytes:
      req.checkoutCacheBytes ??
      defaultCacheBytes(freeBytes(repo.layout.root), sum(finishedCheckouts(repo).map((c) => c.bytes))),
  };
  const { evicted, left } = evictOld(repo, bound, new Set(keys));
  if (evicted.length > 0) {
    log(
      `refs: removed ${evicted.length} least recently used checkout${evicted.length === 1 ? "" : "s"} (${evicted.map((k) => k.slice(0, 12)).join(", ")}): the cache keeps at most ${bound.keep} (--keep-checkouts) and ${bytesText(bound.maxBytes)} (--checkout-cache-gb)`,
    );
  }
  log(
    cacheSummary({
      root: repo.layout.root,
      checkouts: left.length,
      bytes: sum(left.map((c) => c.bytes)),
      keep: bound.keep,
      maxBytes: bound.maxBytes,
      boundGiven: typeof req.checkoutCacheBytes === "number",
    }),
  );
}

/** What results.json records of a prepared variant. */
function preparedRef(v: RefVariant, req: RefsRequest, c: Checkout, b: BuildDone | undefined): PreparedRef {
  return {
    name: v.name,
    dir: c.dir,
    record: {
      ref: v.ref,
      commit: v.resolved.commit,
      dirty: v.resolved.dirty,
      diffDigest: v.resolved.diffDigest,
      swap: v.swap,
      checkoutCommit: v.resolved.checkoutCommit,
      checkout: c.dir,
      checkoutMs: c.checkoutMs,
      checkoutCached: c.cached,
      build: req.build,
      buildMs: b ? Math.round(b.buildMs) : null,
      buildLog: b?.log ?? null,
      buildCached: b?.cached ?? false,
    },
  };
}

/**
 * Resolves, checks out and builds every --ref (and the swapped baseline), in variant order.
 * UsageError: a missing directory, not a repository, an unknown revision, a --swap file missing
 * from --swap-from. RefsError: git missing or failing. BuildFailed: a build that failed, timed
 * out or was interrupted (its log is kept).
 */
export async function prepareRefs(req: RefsRequest, log: (line: string) => void): Promise<PreparedRef[]> {
  const repo = openRepo(req.repo);
  mkdirSync(join(repo.layout.root, "state"), { recursive: true });
  for (const key of sweepStale(repo))
    log(`refs: removed the unfinished checkout ${key.slice(0, 12)} a killed run left`);
  const variants = resolveVariants(repo, req);
  const keyOf = (v: { resolved: Resolved }) => checkoutKey(v.resolved.checkoutCommit, req.build);
  const keys = [...new Set(variants.map(keyOf))];
  const builds = new Map<string, BuildDone>();
  const checkouts = new Map<string, Checkout>();
  refuseIfLocked(repo, keys);
  refuseIfDiskFull(
    repo,
    keys.filter((k) => !existsSync(repo.layout.checkoutDone(k))),
  );
  try {
    for (const key of keys) writeFileSync(repo.layout.lock(key), `${process.pid}\n`);
    for (const key of keys) {
      const names = variants.filter((v) => keyOf(v) === key).map((v) => v.name);
      const label = `${names.join(", ")} (${key.slice(0, 12)})`;
      const { checkout, record } = checkOut(repo, req, key, label, log);
      checkouts.set(key, checkout);
      if (req.build === null) {
        if (!checkout.cached) writeFileSync(repo.layout.size(key), `${treeBytes(checkout.dir)}\n`);
        continue;
      }
      builds.set(key, await buildCheckout(repo, { ...req, build: req.build }, key, label, checkout, record, log));
    }
  } finally {
    for (const key of keys) rmSync(repo.layout.lock(key), { force: true });
  }
  trimCache(repo, req, keys, log);
  return variants.map((v) => preparedRef(v, req, checkouts.get(keyOf(v)) as Checkout, builds.get(keyOf(v))));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Refuses (one line) new checkouts the disk cannot hold: each is expected to be as big as the
 * largest cached one, or, with none cached, as the commit's files.
 */
function refuseIfDiskFull(repo: Repo, newKeys: string[]): void {
  const first = newKeys[0];
  if (first === undefined) return;
  mkdirSync(repo.layout.root, { recursive: true });
  const cached = finishedCheckouts(repo).map((c) => c.bytes);
  // An estimate only: a tree git cannot size (a missing object) is reported by the checkout itself.
  const blobBytes = () =>
    sum(
      (git(repo.top, ["ls-tree", "-r", "-l", "--full-tree", keyCommit(first)], { allowFail: true }) ?? "")
        .split("\n")
        .map((l) => Number(/^\S+ blob \S+\s+(\d+)\t/.exec(l)?.[1] ?? 0)),
    );
  const need = estimateCheckout(cached, cached.some((b) => b > 0) ? 0 : blobBytes());
  const refusal = diskRefusal({
    freeBytes: freeBytes(repo.layout.root),
    need,
    checkouts: newKeys.length,
    cacheRoot: repo.layout.root,
    repo: repo.top,
  });
  if (refusal) throw new RefsError(refusal);
}
