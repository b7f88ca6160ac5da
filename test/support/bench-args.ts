// Tests plan their memory rounds: a bench they start without a --memory-sequential of its own adds
// none (the default adds rounds for up to 600 s until each memory cell has 8 pairs, which would make
// every small memory test a long one and its row counts depend on noise). The sequential rounds have
// their own tests (test/bench/memory-rounds*.test.ts), which pass the flag.

/** `bench` arguments (after the command word) with `--memory-sequential=0` unless they set it or --quick. */
export function withPlannedMemoryRounds(benchArgs: readonly string[]): string[] {
  const own = benchArgs.some((a) => /^--(memory-sequential|quick)(=|$)/.test(a));
  return own ? [...benchArgs] : [...benchArgs, "--memory-sequential=0"];
}

/** A whole CLI argument list: only a `bench` command gets the flag. */
export function cliArgs(args: readonly string[]): string[] {
  return args[0] === "bench" ? ["bench", ...withPlannedMemoryRounds(args.slice(1))] : [...args];
}
