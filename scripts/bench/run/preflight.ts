// The checks a run must pass before any fixture or target work, the same for the CLI and for a
// program calling runBench: an unwritable or non-empty --out, an unwritable reports/ or
// --fixtures-dir, no temp space, a matrix that cannot fit in memory, a --server-arg the bundled
// server refuses, a storm the descriptor limit or backlog cannot hold. Each is one UsageError line.
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { SQLITE_MAX_PATH_BYTES } from "../../../fixtures/meta.js";
import { runDirProblem } from "../../results/journal.js";
import { ProcessStatsError, requireProcessStats } from "../../sampler/process-stats.js";
import { checkBundledFlags } from "../../server-process/bundled.js";
import { checkStormLimits, describeLimits, readLimits } from "../../storm/limits.js";
import { tempDirProblem } from "../../util/temp-dir.js";
import { UsageError, writableDirFlag } from "../../util/usage.js";
import { defaultFixtureName } from "../fixtures/fixtures.js";
import { workDirName } from "../fixtures/run-fixtures.js";
import { checkMemory, machineLimits } from "../memory/memory-estimate.js";
import { memoryCells } from "../rounds/plan.js";
import type { BenchConfig } from "./config.js";

/**
 * A temp directory whose path leaves no room for the copies SQLite opens below it: the run's work
 * folder (run-fixtures.ts), then a pinned fixture (fixture-pin.ts) or a target's copy (privateCopy:
 * the label is a variant's name, after "storm-" or "leak-" at most). Else SQLite refuses the copy.
 */
function tempPathProblem(config: BenchConfig, dir = tmpdir()): string | null {
  const { projects, events, fixture } = config.fixtures;
  const fixtures = [1024, ...config.memory.scriptBytes].map((b) => defaultFixtureName(projects, b, events));
  if (fixture) fixtures.push(basename(fixture));
  const names = [
    ...fixtures.map((f) => `pinned-99-${f}`),
    ...config.targets.targets.map((t) => `storm-${t.name}-999.sqlite`),
  ];
  const below = Math.max(...names.map((n) => Buffer.byteLength(`${workDirName()}XXXXXX/${n}`)));
  const bytes = Buffer.byteLength(dir);
  if (bytes + 1 + below <= SQLITE_MAX_PATH_BYTES) return null;
  return `the temp directory ${dir} (TMPDIR) is ${bytes} bytes long: the run's copies of the fixture go up to ${below + 1} bytes below it, and SQLite opens no file whose path is longer than ${SQLITE_MAX_PATH_BYTES} bytes; set TMPDIR to a shorter path`;
}

/** requireProcessStats as a usage error: one line, exit 2, nothing written. */
export function checkProcessStats(hasProc?: boolean): void {
  try {
    requireProcessStats(hasProc);
  } catch (e) {
    if (e instanceof ProcessStatsError) throw new UsageError(e.message);
    throw e;
  }
}

/** Throws a UsageError for the first check that fails; `warn` hears what may still run. */
export function preflight(
  config: BenchConfig,
  /** The working directory: a run without --out goes to <cwd>/reports. */
  cwd: string,
  warn: (line: string) => void,
  log: (line: string) => void,
): void {
  checkProcessStats();
  // Before any fixture or target work: an unwritable or non-empty --out, an unwritable default
  // reports/ or --fixtures-dir is a usage error, not a crash (or a mixed run folder) later.
  if (config.run.out) {
    writableDirFlag("out", config.run.out);
    const problem = runDirProblem(resolve(config.run.out));
    if (problem) throw new UsageError(`--out ${problem}`);
  } else {
    writableDirFlag("out", join(cwd, "reports"));
  }
  if (config.fixtures.fixturesDir) writableDirFlag("fixtures-dir", config.fixtures.fixturesDir);
  // Checked before any fixture is built: a fixture built into the run folder would make it non-empty.
  if (config.fixtures.fixturesDir && config.run.out) {
    const [fx, out] = [resolve(config.fixtures.fixturesDir), resolve(config.run.out)];
    if (fx === out || fx.startsWith(`${out}/`) || out.startsWith(`${fx}/`)) {
      throw new UsageError(
        `--fixtures-dir ${fx} and --out ${out} overlap: fixtures are shared between runs, a run folder holds one run; give them separate directories`,
      );
    }
  }
  const tmp = tempDirProblem() ?? tempPathProblem(config); // fixture copies go there
  if (tmp) throw new UsageError(tmp);
  // A matrix that cannot fit would only produce servers dead of V8 out-of-memory: say so now.
  const memoryCheck = config.run.memoryCheck;
  const fixtureShape = { projects: config.fixtures.projects, events: config.fixtures.events };
  const bundledOnly = config.targets.targets.every((t) => t.kind === "bundled");
  if (config.memory.enabled && memoryCheck) {
    const check = checkMemory(
      memoryCells(config.memory.scriptBytes, config.memory.clients, config.memory.modes),
      fixtureShape,
      machineLimits(bundledOnly),
    );
    if (check.verdict === "refuse") throw new UsageError(check.line);
    if (check.verdict === "warn") warn(check.line);
  }
  // --server-arg: the bundled server's own parser judges names and values, before anything starts.
  const serverArgs = config.targets.targets.find((t) => t.kind === "bundled")?.serverArgs ?? [];
  if (serverArgs.length > 0) {
    const problem = checkBundledFlags(serverArgs);
    if (problem)
      throw new UsageError(
        `--server-arg: the bundled server refused ${serverArgs.join(" ")}: ${problem} (\`catchup-bench serve --help\` lists its flags)`,
      );
  }
  // A storm the harness's own descriptor limit (or the backlog) cannot hold is refused before anything starts.
  if (config.storm.clients.length > 0) {
    const limits = readLimits(null);
    const refusal = checkStormLimits(Math.max(...config.storm.clients), config.storm.rampMs, limits);
    if (refusal) throw new UsageError(refusal);
    log(`catchup-bench: storm limits: ${describeLimits(limits)}`);
    // Storms are for overload, so a storm that looks too big is run anyway, after a warning.
    if (config.storm.rampMs === 0 && memoryCheck) {
      const cells = config.storm.clients.flatMap((clients) =>
        config.memory.scriptBytes.map((scriptBytes) => ({ scriptBytes, clients, mode: "all at once" })),
      );
      const check = checkMemory(cells, fixtureShape, machineLimits(bundledOnly), "storm");
      if (check.verdict !== "ok") warn(check.line);
    }
  }
}
