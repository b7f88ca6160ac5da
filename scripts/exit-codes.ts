// Every exit code of the CLI, in one place (documented in docs/cli.md). Commands set process.exitCode
// from these; nothing else picks a number.
export const EXIT = {
  /** The run produced what was asked and every guarded cell passed. */
  ok: 0,
  /** A regression guard failed: some guarded cell exceeded its ceiling. */
  regression: 1,
  /** A usage error: a bad flag, argument or input file (one line on stderr). */
  usage: 2,
  /** The run could not produce what was asked: a target failed, a pair is missing, no verdict. */
  noResult: 3,
  /** Stopped by SIGINT (Ctrl-C), rows kept. */
  sigint: 130,
  /** Stopped by SIGTERM, rows kept. */
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
