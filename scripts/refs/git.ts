// The git calls of a refs run, each one synchronous `git` child with a timeout. Hooks are disabled
// (a checkout must not run the user's post-checkout hook) and the user's own index is never touched:
// trees of the working tree are built in a private index file.
import { spawnSync } from "node:child_process";
import { gitFailureMessage } from "./git-failure.js";

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
    throw new RefsError(gitFailureMessage(args, cwd, r.status ?? r.signal, r.stderr.toString()));
  }
  return options.raw ? r.stdout : r.stdout.toString().trim();
}

/** Checks git runs at all; a missing git is one clear line. */
export function requireGit(): void {
  git(process.cwd(), ["--version"]);
}
