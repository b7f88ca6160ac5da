// The bench's fixtures: the default ones (built into fixtures/ when missing or stale, through the
// fixture generator) or the one named by --fixture (validated, never built). Each target gets a private
// copy, so a target that writes to its store cannot change the fixture or another target's run.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { GENERATOR_VERSION, generateFixture } from "../../fixtures/generate.js";
import { readFixtureMeta } from "../../fixtures/meta.js";
import { defaultFixturePath, FIXTURE_LIMITS } from "../../fixtures/options.js";
import type { FixtureMeta } from "../../fixtures/schema.js";
import { copyState } from "../seed/state-files.js";
import type { TargetSpec } from "./config.js";

export interface FixtureRef {
  /** The file targets' copies are made from (the run's pinned copy once pinned: fixture-pin.ts). */
  path: string;
  meta: FixtureMeta;
  /** The fixture the user or the bench named, when `path` is a pinned copy of it. */
  source?: string;
}

/** The generator's default file name for these parameters (p{projects}-s{bytes}-e{events}.sqlite). */
export function defaultFixtureName(projects: number, scriptBytes: number, events: number): string {
  return basename(defaultFixturePath({ projects, scriptBytesMin: scriptBytes, scriptBytesMax: scriptBytes, events }));
}

/** The default fixtures' threads: the generator's defaults, for the thread cases. */
export const BENCH_THREADS = {
  threads: FIXTURE_LIMITS.threads.default,
  threadEvents: FIXTURE_LIMITS.threadEvents.default,
} as const;

/** True when a fixture was built by this generator version with exactly these parameters. */
export function fixtureMatches(meta: FixtureMeta, projects: number, scriptBytes: number, events: number, seed: number) {
  return (
    meta.generatorVersion === GENERATOR_VERSION &&
    meta.threads === BENCH_THREADS.threads &&
    meta.threadEvents === BENCH_THREADS.threadEvents &&
    meta.projects === projects &&
    meta.scriptBytesMin === scriptBytes &&
    meta.scriptBytesMax === scriptBytes &&
    meta.scriptsPerProject === 1 &&
    meta.events === events &&
    meta.seed === seed
  );
}

/** The fixture's verified metadata, or why it cannot be used as is ("corrupt: ..."). */
function readVerified(path: string): FixtureMeta | string {
  try {
    return readFixtureMeta(path, { verify: true });
  } catch (e) {
    return `corrupt: ${(e as Error).message}`;
  }
}

/**
 * Returns the default fixture, building it first when missing, corrupt (unreadable, truncated, rows
 * that do not match content_sha256), or from another generator version or seed; `onBuild` hears
 * about a build and why.
 */
export function ensureFixture(
  dir: string,
  projects: number,
  scriptBytes: number,
  events: number,
  seed: number,
  onBuild?: (path: string, why: string) => void,
): FixtureRef {
  const path = resolve(dir, defaultFixtureName(projects, scriptBytes, events));
  const existing = existsSync(path) ? readVerified(path) : null;
  if (typeof existing === "string" || !existing || !fixtureMatches(existing, projects, scriptBytes, events, seed)) {
    mkdirSync(dir, { recursive: true });
    const why =
      existing === null
        ? "missing"
        : typeof existing === "string"
          ? "corrupt"
          : "stale: other generator version, seed or threads";
    onBuild?.(path, why);
    try {
      generateFixture({
        projects,
        scriptBytesMin: scriptBytes,
        scriptBytesMax: scriptBytes,
        scriptsPerProject: 1,
        events,
        ...BENCH_THREADS,
        seed,
        out: path,
        force: true,
      });
    } catch (e) {
      // Another run may have built it meanwhile (the generator renames a complete file into place).
      const meta = readVerified(path);
      if (typeof meta === "string" || !fixtureMatches(meta, projects, scriptBytes, events, seed)) throw e;
    }
  }
  return { path, meta: readFixtureMeta(path) };
}

/** Validates a user-named fixture (FixtureError when missing, foreign, corrupt or edited). */
export function userFixture(path: string): FixtureRef {
  const full = resolve(path);
  return { path: full, meta: readFixtureMeta(full, { verify: true }) };
}

/** What one target process starts from: its store ({db}/{state}) and the token its clients send (null: --token). */
export interface TargetState {
  db: string;
  token: string | null;
}

let copies = 0;
/**
 * A private copy, in workDir, of what one target process starts from: the variant's seeded state
 * folder for this fixture, with that seed's token (--binding), else the fixture file.
 */
export function privateCopy(fixture: FixtureRef, spec: TargetSpec, workDir: string, label: string): TargetState {
  mkdirSync(workDir, { recursive: true });
  const base = join(workDir, `${label.replace(/[^A-Za-z0-9._-]/g, "_")}-${++copies}`);
  const seeded = spec.kind === "command" ? spec.seeded?.templates[fixture.path] : undefined;
  if (seeded) {
    // As it is: a relative link in the state stays relative, so the copy's links lead into the copy.
    copyState(seeded.dir, base);
    return { db: base, token: seeded.token };
  }
  copyFileSync(fixture.path, `${base}.sqlite`);
  return { db: `${base}.sqlite`, token: null };
}

/**
 * The fixture with the resume cursors given on the command line: a foreign server seeded through its
 * own API has its own sequences, and every case's afterSequence is derived from these two.
 */
export function withSequences(ref: FixtureRef, given: { cursor: number | null; latest: number | null }): FixtureRef {
  if (given.cursor === null && given.latest === null) return ref;
  const meta = {
    ...ref.meta,
    cursorSequence: given.cursor ?? ref.meta.cursorSequence,
    latestSequence: given.latest ?? ref.meta.latestSequence,
  };
  return { ...ref, meta };
}
