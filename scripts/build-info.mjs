// Run by `npm run build` (and `prepare`, so by `npm pack` and an install from git): records the commit
// of this catchup-bench checkout in dist/build-info.json, where a run reads the harness's identity,
// and whether tracked files differed from that commit (a report then says so beside the commit).
// Only a checkout whose top level is this package counts: built inside another repository (copied
// into a user's project), it records no commit rather than that repository's.
import { execFileSync } from "node:child_process";
import { realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = realpathSync(fileURLToPath(new URL("..", import.meta.url)));
const file = `${root}/dist/build-info.json`;

function git(args) {
  try {
    return execFileSync("git", args, {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
    }).trim();
  } catch {
    return null; // no git, or not a repository
  }
}

const top = git(["rev-parse", "--show-toplevel"]);
const commit = top !== null && realpathSync(top) === root ? git(["rev-parse", "HEAD"]) : null;
if (commit) {
  // Unknown (git status failed) is not claimed as changed.
  const status = git(["status", "--porcelain", "--untracked-files=no"]);
  const dirty = status !== null && status !== "";
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify({ commit, ...(dirty ? { dirty } : {}) })}\n`);
  renameSync(tmp, file);
} else {
  rmSync(file, { force: true });
}
