// The git calls of a refs run, each one synchronous `git` child with a timeout. Hooks are disabled
// (a checkout must not run the user's post-checkout hook) and the user's own index is never touched:
// trees of the working tree are built in a private index file.
import { spawnSync } from "node:child_process";

export class RefsError extends Error {
  override readonly name = "RefsError";
}

const TIMEOUT_MS = 120_000;

export interface GitOptions {
  env?: Record<string, string>;
  /** Fail quietly: return null instead of throwing when git exits non-zero. */
  allowFail?: boolean;
  input?: string;
  /** Return stdout as a Buffer (binary diffs). */
  raw?: boolean;
}

export function git(cwd: string, args: string[], options: GitOptions & { raw: true }): Buffer;
export function git(cwd: string, args: string[], options: GitOptions & { allowFail: true }): string | null;
export function git(cwd: string, args: string[], options?: GitOptions): string;
export function git(cwd: string, args: string[], options: GitOptions = {}): string | Buffer | null {
  const r = spawnSync("git", ["-c", "core.hooksPath=/dev/null", ...args], {
    cwd,
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...options.env },
    input: options.input,
    timeout: TIMEOUT_MS,
    maxBuffer: 1 << 30,
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new RefsError("git was not found on PATH (--repo/--ref check out revisions with git); install git");
    }
    throw new RefsError(`git ${args.join(" ")} in ${cwd} failed: ${r.error.message}`);
  }
  if (r.status !== 0) {
    if (options.allowFail) return null;
    const why = r.stderr.toString().trim().split("\n")[0] ?? "";
    throw new RefsError(`git ${args.join(" ")} in ${cwd} failed (exit ${r.status ?? r.signal}): ${why}`);
  }
  return options.raw ? r.stdout : r.stdout.toString().trim();
}

/** Checks git runs at all; a missing git is one clear line. */
export function requireGit(): void {
  git(process.cwd(), ["--version"]);
}

/** The first stderr line of a failing git command, or null when it succeeds. */
export function gitError(cwd: string, args: string[]): string | null {
  const r = spawnSync("git", args, { cwd, stdio: ["ignore", "ignore", "pipe"], timeout: TIMEOUT_MS });
  if (r.error) throw new RefsError(`git ${args.join(" ")} failed: ${r.error.message}`);
  return r.status === 0 ? null : (r.stderr.toString().trim().split("\n")[0] ?? `exit ${r.status}`);
}
