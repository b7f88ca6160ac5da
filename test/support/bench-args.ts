// Tests plan their rounds: a bench they start without a --memory-sequential (--latency-sequential) of its own adds
// none (the default adds rounds for up to 600 s until each memory cell has 8 pairs, which would make
// every small memory test a long one and its row counts depend on noise). The sequential rounds have
// their own tests (test/bench/memory-rounds*.test.ts), which pass the flag.

/** `bench` arguments (after the command word) with `--memory-sequential=0` and `--latency-sequential=0` unless they set them or --quick. */
export function withPlannedMemoryRounds(benchArgs: readonly string[]): string[] {
  const quick = benchArgs.some((a) => /^--quick(=|$)/.test(a));
  const own = (flag: string) => quick || benchArgs.some((a) => new RegExp(`^--${flag}(=|$)`).test(a));
  return [
    ...benchArgs,
    ...(own("memory-sequential") ? [] : ["--memory-sequential=0"]),
    ...(own("latency-sequential") ? [] : ["--latency-sequential=0"]),
  ];
}

/** A whole CLI argument list: only a `bench` command gets the flag. */
export function cliArgs(args: readonly string[]): string[] {
  return args[0] === "bench" ? ["bench", ...withPlannedMemoryRounds(args.slice(1))] : [...args];
}
