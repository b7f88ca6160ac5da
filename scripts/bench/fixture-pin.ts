// A run measures exactly one fixture. The fixture a run chose is copied once into the run's work
// directory and every target's private copy is made from that pinned copy, so another run rebuilding
// the same default fixture (another --seed: "stale"), or a hand-made replacement, cannot reach a run
// already under way. The pinned copy is verified against the digest the run read at the start: a file
// swapped between that check and the copy is refused, never measured.
import { copyFileSync } from "node:fs";
import { basename, join } from "node:path";
import { asDiskFull } from "../../common/disk-full.js";
import { FixtureError, readFixtureMeta } from "../../fixtures/meta.js";
import type { FixtureRef } from "./fixtures.js";

let pins = 0;

/** `fixture` copied into workDir and checked; the ref names the copy (`source`: the file it came from). */
export function pinFixture(fixture: FixtureRef, workDir: string): FixtureRef {
  const source = fixture.source ?? fixture.path;
  const pinned = join(workDir, `pinned-${++pins}-${basename(source)}`);
  try {
    copyFileSync(source, pinned);
  } catch (e) {
    // The temp directory is full: one line naming the copy (the CLI names TMPDIR), not a stack.
    throw asDiskFull(e, pinned);
  }
  // A copy that cannot be read (SQLite refuses its path) says why; only a different digest is a change.
  const digest = readFixtureMeta(pinned, { verify: true }).contentSha256;
  if (digest !== fixture.meta.contentSha256) {
    throw new FixtureError(
      `fixture ${source}: changed while this run was reading it (content ${fixture.meta.contentSha256.slice(0, 12)} at the check, ${digest.slice(0, 12)} in the copy; another run rebuilt or replaced it): start this run again`,
    );
  }
  return { ...fixture, path: pinned, source };
}
