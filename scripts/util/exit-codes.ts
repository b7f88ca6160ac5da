// Every exit code of the CLI, in one place (documented in docs/cli.md). Commands set process.exitCode
// from these; nothing else picks a number.
import type { StopSignal } from "./stop-signals.js";

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

/** The code of a run stopped by Ctrl-C or SIGTERM: 128 + the signal's number, as a shell reports it. */
export function signalExitCode(signal: StopSignal): ExitCode {
  return signal === "SIGINT" ? EXIT.sigint : EXIT.sigterm;
}

/** What each code means, as docs/cli.md states it. */
export const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: "The run produced what was asked and every guarded cell passed (or no guard was asked for).",
  regression:
    "A check failed: a regression guard's cell exceeded its ceiling (bench, report), or fuzz found the server unhealthy.",
  usage:
    "Usage error: a bad flag, argument, input file, output path or environment value, or a system it cannot run on (no /proc). One line on stderr; nothing written.",
  noResult:
    "The run could not produce what was asked: a target failed to start or crashed, the driver failed, a seed failed (a binding's call failed or ran out of --binding-timeout-ms), a run stopped early (--fail-fast), the disk filled up (once a trial ran), report was asked for a run still in progress, a guarded cell had no verdict, the process ran out of work while its command still waited (it names what on), or an internal error.",
  sigint: "Stopped by SIGINT (Ctrl-C); the rows measured so far are kept and reported.",
  sigterm: "Stopped by SIGTERM; the rows measured so far are kept and reported.",
};
