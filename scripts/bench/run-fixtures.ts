// The fixtures one bench run measures, built (or found) once per script size and pinned: each is
// copied into the run's work directory, so a fixture rebuilt meanwhile cannot change the run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { removeDeadOwners } from "../../common/atomic-file.js";
import { fixtureCacheDir } from "../../fixtures/options.js";
import type { RunFixture } from "../results/schema.js";
import { size } from "../util/format.js";
import type { BenchConfig } from "./config.js";
import { pinFixture } from "./fixture-pin.js";
import { ensureFixture, type FixtureRef, userFixture, withSequences } from "./fixtures.js";
import { isThreadCase } from "./plan.js";

const WORK_PREFIX = "catchup-bench-";
/** The prefix of this run's work folder in the temp directory (mkdtemp adds six characters). */
export const workDirName = (): string => `${WORK_PREFIX}${process.pid}-`;

/**
 * Removes the fixture copies of runs whose harness died without cleaning up (SIGKILL): their work
 * directories are named after the harness pid.
 */
export function sweepStaleWorkDirs(dir = tmpdir()): void {
  removeDeadOwners(dir, new RegExp(`^${WORK_PREFIX}(\\d+)-`));
}

export interface RunFixtures {
  /** Fixture copies live here: the pinned copy of each fixture, and each target's. */
  workDir: string;
  latency: FixtureRef | null;
  /** By script size. */
  memory: Map<number, FixtureRef>;
  /** Leak cycles resume from the first memory fixture's cursor, as the memory cells' resume case does. */
  leak: FixtureRef | null;
  /** Storm cells use the memory cells' fixtures (one per script size), built here when memory cells are off. */
  storm: Map<number, FixtureRef>;
  /** The latency cases the latency fixture can run. */
  cases: BenchConfig["latency"]["cases"];
}

/** Builds every fixture the config's matrices need; the work directory goes again if one fails. */
export function buildRunFixtures(config: BenchConfig, log: (line: string) => void): RunFixtures {
  const { fixtures: fx, latency, memory, leak, storm } = config;
  const fixturesDir = resolve(fx.fixturesDir ?? fixtureCacheDir());
  sweepStaleWorkDirs();
  const workDir = mkdtempSync(join(tmpdir(), workDirName()));
  const builtFor = new Map<number, FixtureRef>();
  const build = (bytes: number): FixtureRef => {
    const known = builtFor.get(bytes);
    if (known) return known;
    const why = (path: string, reason: string) =>
      log(`building fixture ${path} (${fx.projects} projects × ${size(bytes)}, ${fx.events} events; ${reason})`);
    const ref = withSequences(
      pinFixture(ensureFixture(fixturesDir, fx.projects, bytes, fx.events, fx.seed, why), workDir),
      fx.sequences,
    );
    builtFor.set(bytes, ref);
    return ref;
  };
  const perSize = (on: boolean) => new Map(on ? memory.scriptBytes.map((b) => [b, build(b)] as const) : []);
  try {
    const latencyFixture = latency.enabled
      ? fx.fixture
        ? withSequences(pinFixture(userFixture(fx.fixture), workDir), fx.sequences)
        : build(1024)
      : null;
    const memoryFixtures = perSize(memory.enabled);
    const leakFixture = leak.cycles > 0 ? build(memory.scriptBytes[0] ?? 1024) : null;
    const stormFixtures = perSize(storm.clients.length > 0);
    const cases = runnableCases(latencyFixture, latency.cases, log);
    return { workDir, latency: latencyFixture, memory: memoryFixtures, leak: leakFixture, storm: stormFixtures, cases };
  } catch (e) {
    rmSync(workDir, { recursive: true, force: true });
    throw e;
  }
}

/** The file a pinned fixture was copied from (the path the user knows). */
export function sourceOf(f: FixtureRef): string {
  return f.source ?? f.path;
}

/**
 * A fixture without threads (one built before threads, or with --threads 0), or seeded by a binding
 * that writes none, has no thread cases to run.
 */
export function runnableCases(
  fixture: FixtureRef | null,
  cases: RunFixtures["cases"],
  log: (line: string) => void,
  binding?: string,
): RunFixtures["cases"] {
  const runnable = fixture && fixture.meta.threads === 0 ? cases.filter((c) => !isThreadCase(c)) : cases;
  if (runnable.length < cases.length) {
    log(
      binding
        ? `thread cases skipped: binding ${binding} writes no threads`
        : `thread cases skipped: fixture ${fixture ? sourceOf(fixture) : ""} has no threads (build one with: npm run fixture -- --threads N)`,
    );
  }
  return runnable;
}

/** A fixture as results.json records it. */
export function fixtureShape({ meta }: FixtureRef): RunFixture {
  return {
    projects: meta.projects,
    events: meta.events,
    scriptBytesMin: meta.scriptBytesMin,
    scriptBytesMax: meta.scriptBytesMax,
    contentSha256: meta.contentSha256,
  };
}
