// What `bench` is asked to do, from its flags and its config file: remove a repository's checkout
// cache (--clean-checkouts), or run a BenchConfig. Pure apart from reading the config file and
// --token-file.
import type { BenchConfig } from "../bench/run/config.js";
import { parseCleanCheckouts } from "../refs/checkout-plan.js";
import { UsageError } from "../util/usage.js";
import { BENCH_OPTIONS, QUICK_FLAGS } from "./bench.js";
import { type ConfigOrigin, loadConfigFile, namedFromFile, originOf, withConfig } from "./config-file.js";
import { type RawFlags, resolveConfig } from "./resolve-config.js";
import type { Env } from "./token.js";

export type BenchRequest = { clean: string } | { config: BenchConfig };

/**
 * The request of `bench` with these flags (as yargs leaves them) in `cwd`, and where its options came
 * from. A flag or key refused is a UsageError naming it where it was given: `--token` on the command
 * line, `key "token" in FILE` from the config file.
 */
export function benchRequest(argv: RawFlags, cwd: string, env: Env): BenchRequest & { origin: ConfigOrigin | null } {
  // catchup-bench.config.json (or --config): its options, under the ones given as flags.
  const loaded = loadConfigFile(BENCH_OPTIONS, argv.config as string | undefined, cwd);
  const raw = loaded ? withConfig(argv, loaded.flags, QUICK_FLAGS) : argv;
  const origin = loaded ? originOf(loaded.file, loaded.flags, argv, raw) : null;
  try {
    // --repo R --clean-checkouts removes R's checkout cache and runs nothing.
    const clean = parseCleanCheckouts(raw);
    if (clean !== null) return { clean, origin };
    return {
      config: resolveConfig(raw, env, loaded ? { path: loaded.file, sha256: loaded.sha256 } : null),
      origin,
    };
  } catch (e) {
    throw origin && e instanceof UsageError ? new UsageError(namedFromFile(e.message, origin)) : e;
  }
}
