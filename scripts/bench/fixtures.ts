// The bench's fixtures: the default ones (built into fixtures/ when missing, through the fixture
// generator) or the one named by --fixture (validated, never built). Each target gets a private
// copy, so a target that writes to its store cannot change the fixture or another target's run.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateFixture } from "../../fixtures/generate.js";
import { readFixtureMeta } from "../../fixtures/meta.js";
import type { FixtureMeta } from "../../fixtures/schema.js";

export interface FixtureRef {
  path: string;
  meta: FixtureMeta;
}

/** The generator's default file name for these parameters (fixtures/p{projects}-s{bytes}-e{events}.sqlite). */
export function defaultFixtureName(projects: number, scriptBytes: number, events: number): string {
  return `p${projects}-s${scriptBytes}-e${events}.sqlite`;
}

/** Returns the default fixture, building it first when missing; `onBuild` hears about a build. */
export function ensureFixture(
  dir: string,
  projects: number,
  scriptBytes: number,
  events: number,
  seed: number,
  onBuild?: (path: string) => void,
): FixtureRef {
  const path = resolve(dir, defaultFixtureName(projects, scriptBytes, events));
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    onBuild?.(path);
    try {
      generateFixture({
        projects,
        scriptBytesMin: scriptBytes,
        scriptBytesMax: scriptBytes,
        scriptsPerProject: 1,
        events,
        seed,
        out: path,
      });
    } catch (e) {
      // Another run may have built it meanwhile (the generator renames a complete file into place).
      if (!existsSync(path)) throw e;
    }
  }
  return { path, meta: readFixtureMeta(path) };
}

/** Validates a user-named fixture (FixtureError when missing or foreign). */
export function userFixture(path: string): FixtureRef {
  const full = resolve(path);
  return { path: full, meta: readFixtureMeta(full) };
}

let copies = 0;
/** A private copy of a fixture in workDir, for one target process. */
export function privateCopy(fixture: FixtureRef, workDir: string, label: string): string {
  mkdirSync(workDir, { recursive: true });
  const dest = join(workDir, `${label.replace(/[^A-Za-z0-9._-]/g, "_")}-${++copies}.sqlite`);
  copyFileSync(fixture.path, dest);
  return dest;
}
