// Where the target's RSS and CPU time come from. On Linux, /proc (the fast path: a statm read of
// about 2 µs on the RSS lane's own thread, CPU time from /proc/PID/stat). Elsewhere the portable
// path is pidusage in its `ps` mode (the method it uses on macOS and the BSDs): one `ps` process per
// reading, so the RSS lane keeps a coarser cadence (PS_LANE_INTERVAL_MS) and CPU time has ps's
// TIME resolution (1 s on Linux procps). CATCHUP_BENCH_PROCESS_STATS=ps forces that path on Linux,
// so it is tested where the fast path also runs.
import { existsSync } from "node:fs";
import pidusage from "pidusage";

export const PROCESS_STATS_ENV = "CATCHUP_BENCH_PROCESS_STATS";
export const PROCESS_STATS_SOURCES = ["proc", "ps"] as const;
export type ProcessStatsSource = (typeof PROCESS_STATS_SOURCES)[number];

/**
 * The RSS lane's interval through `ps` (ms). A `ps` run took 39 ms of wall time (median; p99 96 ms)
 * on a loaded 2-core VM, and a lane at 50 ms skipped 23 of 100 slots there (npm run bench:sampler --
 * --only sources), so 10 ms is far out of reach and 100 ms is what it keeps.
 */
export const PS_LANE_INTERVAL_MS = 100;

export class ProcessStatsError extends Error {
  override readonly name = "ProcessStatsError";
}

/** The source this process uses: the environment's choice, else /proc where it exists, else ps. Throws on a bad value. */
export function processStatsSource(
  env: NodeJS.ProcessEnv = process.env,
  hasProc: boolean = existsSync("/proc/self/stat"),
): ProcessStatsSource {
  const asked = env[PROCESS_STATS_ENV];
  if (asked === undefined || asked === "") return hasProc ? "proc" : "ps";
  if (!(PROCESS_STATS_SOURCES as readonly string[]).includes(asked)) {
    throw new ProcessStatsError(
      `${PROCESS_STATS_ENV} must be one of ${PROCESS_STATS_SOURCES.join(", ")} (got ${JSON.stringify(asked)})`,
    );
  }
  if (asked === "proc" && !hasProc) throw new ProcessStatsError(`${PROCESS_STATS_ENV}=proc: this system has no /proc`);
  return asked as ProcessStatsSource;
}

/**
 * The source is known (a bad CATCHUP_BENCH_PROCESS_STATS throws) and /proc is there: a target's
 * listening process and its inspector are found through /proc, so a system without it is refused in
 * one line rather than half run.
 */
export function requireProcessStats(hasProc: boolean = existsSync("/proc/self/stat")): ProcessStatsSource {
  const source = processStatsSource(process.env, hasProc);
  if (!hasProc) {
    throw new ProcessStatsError(
      `this system has no /proc: catchup-bench finds a target's listening process and its inspector through /proc (Linux only); its RSS and CPU could be read through pidusage (${PROCESS_STATS_ENV}=ps), but nothing can be sampled before the process is found`,
    );
  }
  return source;
}

/** The RSS lane's interval for a source: the asked one through /proc, never finer than PS_LANE_INTERVAL_MS through ps. */
export function laneIntervalFor(source: ProcessStatsSource, askedMs: number): number {
  return source === "ps" ? Math.max(askedMs, PS_LANE_INTERVAL_MS) : askedMs;
}

/** One reading through pidusage's ps mode: resident bytes and CPU time (ms). Rejects when pid is gone. */
export async function psReading(pid: number): Promise<{ rss: number; cpuMs: number }> {
  // maxage 0: pidusage keeps no history (its CPU share is not used), so it starts no timer either.
  // (Only in ps mode: its Linux reader, procfile, calls itself again until a history exists.)
  const s = await pidusage(pid, { usePs: true, maxage: 0 });
  if (!s || !(s.memory > 0)) throw new ProcessStatsError(`process ${pid} is gone (ps gave no row)`);
  return { rss: s.memory, cpuMs: s.ctime };
}

/**
 * What results.json records under run.processStats: the source, the RSS interval it keeps, and the
 * step of its CPU time (ms): one clock tick through /proc (10 ms at USER_HZ 100), 1 s through ps on
 * Linux (its TIME column is [[dd-]hh:]mm:ss; macOS's ps adds hundredths), null where not known.
 */
export function processStatsInfo(askedRssIntervalMs: number, source: ProcessStatsSource = processStatsSource()) {
  return {
    source,
    rssIntervalMs: laneIntervalFor(source, askedRssIntervalMs),
    cpuStepMs: source === "proc" ? 10 : process.platform === "linux" ? 1000 : process.platform === "darwin" ? 10 : null,
  };
}
