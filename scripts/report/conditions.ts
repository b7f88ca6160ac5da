// The run's conditions as the summary states them: settings, machine and command (pure, from results.json).

import type { MinEffect } from "../results/metric-floor.js";
import type { Results } from "../results/schema.js";

/** The run's settings as one line, and the command that made it. */
export interface Conditions {
  /** "legacy (bundled: node dist/server-under-test/main.js --delivery legacy)", one per variant. */
  variants: string[];
  fixture: string | null;
  trials: number | null;
  memoryTrials: number | null;
  /** The pairs sequential memory rounds went up to, when they ran. */
  memoryRoundsUpTo: number | null;
  ackDelayMs: number | null;
  holdMs: number | null;
  rssIntervalMs: number | null;
  heapIntervalMs: number | null;
  /** RSS and CPU read through pidusage's ps mode (results' run.processStats), not /proc: said beside the interval. */
  rssThroughPs: boolean;
  machine: string;
  /** "catchup-bench 0.1.0, commit b12b4b50b2c0": the harness's own, never a variant's. */
  harness: string;
  command: string | null;
  /** "catchup-bench.config.json (sha256 1a2b3c4d5e6f)": the config file the options came from. */
  configFile: string | null;
  minEffect: MinEffect;
  /** The unary RPC sent as the concurrent probe ("server.getConfig"). */
  probeTag: string | null;
}

function num(config: Record<string, unknown>, key: string): number | null {
  const v = config[key];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** The recorded config file as "path (sha256 first 12)", the path relative to the project root when under it. */
function configFileText(v: unknown, root: string | undefined): string | null {
  const f = v as { path?: unknown; sha256?: unknown } | null | undefined;
  if (!f || typeof f.path !== "string" || typeof f.sha256 !== "string") return null;
  const path = root && f.path.startsWith(`${root}/`) ? f.path.slice(root.length + 1) : f.path;
  return `${path} (sha256 ${f.sha256.slice(0, 12)})`;
}

/** "commit 0123456789ab", and "with uncommitted changes" when the harness was built from a changed tree. */
export function harnessCommitText(r: Pick<Results["run"], "gitCommit" | "gitDirty">): string {
  return `commit ${(r.gitCommit ?? "").slice(0, 12)}${r.gitDirty ? " with uncommitted changes" : ""}`;
}

/** The conditions of a run, from its recorded configuration and machine facts. */
export function conditionsOf(
  results: Results,
  fixture: string | null,
  variantText: (v: Results["variants"][number]) => string,
  minEffect: MinEffect,
): Conditions {
  const c = results.run.config ?? {};
  const r = results.run;
  const load = r.loadAverage[0];
  const commit = r.gitCommit ? `, ${harnessCommitText(r)}` : "";
  return {
    variants: results.variants.map(variantText),
    fixture,
    trials: results.latency.length > 0 ? num(c, "trials") : null,
    memoryTrials: results.memory.length > 0 ? num(c, "memoryTrials") : null,
    memoryRoundsUpTo: results.memoryRounds?.targetPairs ?? null,
    ackDelayMs: num(c, "ackDelayMs"),
    holdMs: num(c, "holdMs"),
    // The interval the RSS lane's source kept (coarser through ps than asked), else the asked one.
    rssIntervalMs: results.memory.length > 0 ? (r.processStats?.rssIntervalMs ?? num(c, "sampleIntervalMs")) : null,
    heapIntervalMs: results.memory.length > 0 ? (num(c, "heapIntervalMs") ?? num(c, "sampleIntervalMs")) : null,
    rssThroughPs: r.processStats?.source === "ps",
    machine: `${r.cpuModel}, ${r.cores} cores, Node ${r.node}, load ${typeof load === "number" ? load.toFixed(2) : "n/a"} at start`,
    harness: `catchup-bench ${r.harnessVersion ?? "(version not recorded)"}${commit}`,
    command: r.command ?? null,
    configFile: configFileText(c.configFile, r.projectRoot),
    minEffect,
    probeTag: typeof c.probeTag === "string" ? c.probeTag : null,
  };
}
