// The load phase (--binding): before any trial, each foreign variant's server is seeded once per
// fixture through its own API, into a state folder that becomes the variant's template; every trial
// then starts on a fresh copy of it (fixtures.ts privateCopy). A --ref variant's templates are kept
// beside its build and reused while nothing that decides them changed (seed-cache.ts). A seed that
// fails or disagrees with the fixture stops the run: nothing is measured on a half-seeded server.
// Ctrl-C/SIGTERM stops the seed wherever it is; a second signal exits at once.
import { mkdtempSync } from "node:fs";
import { basename, join } from "node:path";
import type { LoadedBinding } from "../../seed/load-binding.js";
import { TargetError } from "../../server-process/command.js";
import { killAllNow } from "../../server-process/process.js";
import { signalExitCode } from "../../util/exit-codes.js";
import { registerSecret } from "../../util/redact.js";
import { onStopSignals, type StopSignal } from "../../util/stop-signals.js";
import type { FixtureRef } from "../fixtures/fixtures.js";
import { type RunFixtures, runnableCases, sourceOf } from "../fixtures/run-fixtures.js";
import type { BenchConfig, SeededState, TargetSpec, TargetsConfig } from "../run/config.js";
import { keepTemplate, reusableTemplate, templateDirOf, templateKey } from "./seed-cache.js";
import { type SeedOptions, type SeedResult, seedState } from "./seed-state.js";

/** Ctrl-C/SIGTERM during the load phase: the run ends as the signal would (exit 130/143). */
export class SeedStopped extends TargetError {
  constructor(readonly signal: StopSignal) {
    super(`seed: stopped by ${signal}; nothing was measured`);
  }
}

interface SeedIO {
  log(line: string): void;
  signal: AbortSignal;
}

/** Seeds every foreign variant through the binding (--binding); returns the targets and fixtures the run then uses. */
export async function seedTargets(
  config: BenchConfig,
  launch: TargetsConfig,
  fixtures: RunFixtures,
  loaded: LoadedBinding | null,
  log: (line: string) => void,
): Promise<{ launch: TargetsConfig; fixtures: RunFixtures }> {
  if (loaded === null) return { launch, fixtures };
  // Ctrl-C/SIGTERM stop the seed (and the server it started); nothing of it is kept. A second signal
  // does not wait for anything (a server slow to stop, a binding that ignores the stop).
  const abort = new AbortController();
  const offSignals = onStopSignals((sig) => {
    if (abort.signal.aborted) {
      killAllNow();
      process.exit(signalExitCode((abort.signal.reason as SeedStopped).signal));
    }
    log(`catchup-bench: ${sig}: stopping the seed; a second signal exits at once`);
    abort.abort(new SeedStopped(sig));
  });
  try {
    return await seedAll(config, launch, fixtures, { log, signal: abort.signal }, loaded);
  } catch (e) {
    throw abort.signal.aborted ? abort.signal.reason : e;
  } finally {
    offSignals();
  }
}

async function seedAll(
  config: BenchConfig,
  launch: TargetsConfig,
  fixtures: RunFixtures,
  io: SeedIO,
  loaded: LoadedBinding,
): Promise<{ launch: TargetsConfig; fixtures: RunFixtures }> {
  const distinct = [...new Map(allFixtures(fixtures).map((f) => [f.path, f])).values()];
  const results = new Map<string, Map<string, SeedResult>>();
  const targets: TargetSpec[] = [];
  for (const spec of launch.targets) {
    if (spec.kind !== "command") {
      targets.push(spec);
      continue;
    }
    const byFixture = new Map<string, SeedResult>();
    for (const fixture of distinct) {
      const r = await cachedOrSeeded(spec, fixture, { config, launch, loaded, workDir: fixtures.workDir, io });
      if (r.token) registerSecret(r.token);
      byFixture.set(fixture.path, r);
    }
    results.set(spec.name, byFixture);
    const seeded: SeededState = {
      templates: Object.fromEntries([...byFixture].map(([path, r]) => [path, { dir: r.template, token: r.token }])),
      records: [...byFixture.values()].map((r) => r.record),
    };
    targets.push({ ...spec, seeded });
  }
  const threads = loaded.binding.kinds.includes("thread");
  const seeded = withSeededSequences(fixtures, results, threads);
  return {
    launch: { ...launch, targets },
    fixtures: { ...seeded, cases: runnableCases(seeded.latency, fixtures.cases, io.log, loaded.binding.name) },
  };
}

function allFixtures(f: RunFixtures): FixtureRef[] {
  return [f.latency, ...f.memory.values(), f.leak, ...f.storm.values()].filter((x): x is FixtureRef => x !== null);
}

/** A --ref variant's template from an earlier run, or a new seed (kept for later runs when it is a --ref's). */
async function cachedOrSeeded(
  spec: Extract<TargetSpec, { kind: "command" }>,
  fixture: FixtureRef,
  o: Omit<SeedOptions, "stateDir">,
): Promise<SeedResult> {
  const where = `seed: ${spec.name} on ${basename(sourceOf(fixture))}`;
  const key = templateKey(spec, o.loaded, o.config.binding.options);
  const cacheDir = templateDirOf(spec, fixture);
  const kept = cacheDir ? reusableTemplate(cacheDir, key, (why) => o.io.log(`${where}: ${why}`)) : null;
  if (cacheDir && kept) {
    o.io.log(`${where}: template from an earlier run (${cacheDir})`);
    return kept;
  }
  // Seeded in the run's work folder, outside any repository (a server may run git in its folders).
  const dir = mkdtempSync(join(o.workDir, `seed-${spec.name.replace(/[^A-Za-z0-9._-]/g, "_")}-`));
  const r = await seedState(spec, fixture, { ...o, stateDir: join(dir, "state") });
  if (!cacheDir) return r;
  return keepTemplate(r, key, cacheDir, (why) => o.io.log(`catchup-bench: warning: ${where}: ${why}`));
}

/**
 * The fixtures with the sequences the servers assigned. Every variant must agree on them (one set of
 * cases is run against all); a binding that writes no threads leaves the fixture without thread cases.
 */
function withSeededSequences(
  fixtures: RunFixtures,
  results: Map<string, Map<string, SeedResult>>,
  threads: boolean,
): RunFixtures {
  const remap = new Map<string, FixtureRef>();
  const seeded = (f: FixtureRef | null): FixtureRef | null => {
    if (!f) return null;
    const known = remap.get(f.path);
    if (known) return known;
    let first: { variant: string; r: SeedResult } | null = null;
    for (const [variant, byFixture] of results) {
      const r = byFixture.get(f.path);
      if (!r) continue;
      if (!first) first = { variant, r };
      else if (r.sequences.cursor !== first.r.sequences.cursor || r.sequences.latest !== first.r.sequences.latest) {
        throw new TargetError(
          `seed: ${variant} assigned cursor ${r.sequences.cursor} / latest ${r.sequences.latest} on ${basename(sourceOf(f))}, but ${first.variant} assigned ${first.r.sequences.cursor} / ${first.r.sequences.latest}: the cases cannot be the same for both`,
        );
      }
    }
    const s = first?.r.sequences;
    const meta = s
      ? {
          ...f.meta,
          cursorSequence: s.cursor,
          latestSequence: s.latest,
          ...(threads
            ? { threadCursorSequence: s.threadCursor, threadLatestSequence: s.threadLatest }
            : { threads: 0 }),
        }
      : f.meta;
    const ref = { ...f, meta };
    remap.set(f.path, ref);
    return ref;
  };
  const bySize = (m: Map<number, FixtureRef>) => new Map([...m].map(([b, f]) => [b, seeded(f) as FixtureRef]));
  return {
    ...fixtures,
    latency: seeded(fixtures.latency),
    memory: bySize(fixtures.memory),
    leak: seeded(fixtures.leak),
    storm: bySize(fixtures.storm),
  };
}
