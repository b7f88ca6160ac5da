// A bench config's --ref variants made real: each placeholder target gets its checkout as working
// directory and its RefRecord (what results.json records), once the checkouts are built.

import { BuildFailed } from "../../refs/build.js";
import { prepareRefs, RefsError } from "../../refs/checkout.js";
import { EXIT, signalExitCode } from "../../util/exit-codes.js";
import type { TargetSpec, TargetsConfig } from "./config.js";

/** Checks out and builds the --ref revisions (if any) and returns the targets config with their targets. */
export async function withRefTargets(config: TargetsConfig, log: (line: string) => void): Promise<TargetsConfig> {
  if (!config.refs) return config;
  const prepared = await prepareRefs(config.refs, log);
  const byName = new Map(prepared.map((p) => [p.name, p]));
  const targets = config.targets.map((t): TargetSpec => {
    const p = byName.get(t.name);
    return p && t.kind === "command" ? { ...t, cwd: p.dir, ref: p.record } : t;
  });
  return { ...config, targets };
}

/**
 * The exit code for an error of the refs stage, or null when it is not one: a failed build or a git
 * failure is "no result" (3); a build stopped by Ctrl-C/SIGTERM exits as the signal would.
 */
export function refsExitCode(e: unknown): number | null {
  if (e instanceof BuildFailed) {
    return e.signal ? signalExitCode(e.signal) : EXIT.noResult;
  }
  if (e instanceof RefsError) return EXIT.noResult;
  return null;
}
