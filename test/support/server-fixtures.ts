// Test support: small fixtures for server tests, built with the real generator in a temp dir.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateFixture } from "../../fixtures/generate.js";

export interface FixtureSize {
  projects: number;
  scriptBytes: number;
  events: number;
  /** Generator seed (default 7). */
  seed?: number;
}

export interface TempFixtures {
  dir: string;
  make: (name: string, options: FixtureSize) => string;
  cleanup: () => void;
}

/** A temp directory (named prefix-XXXXXX) to build fixtures in with make(); cleanup() removes it. */
export function tempFixtures(prefix = "catchup-server-test"): TempFixtures {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    dir,
    make: (name, o) =>
      generateFixture({
        projects: o.projects,
        scriptBytesMin: o.scriptBytes,
        scriptBytesMax: o.scriptBytes,
        scriptsPerProject: 1,
        events: o.events,
        seed: o.seed ?? 7,
        out: join(dir, `${name}.sqlite`),
      }).path,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The chunk-count fixture: 1,000 post-cursor events over 600 projects, so the coalesced replay
 * after the cursor has 600 items (> 512: legacy needs two replay chunks).
 */
export const CHUNK_FIXTURE = { projects: 600, scriptBytes: 256, events: 1000 };
