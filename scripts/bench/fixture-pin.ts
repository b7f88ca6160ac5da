// A run measures exactly one fixture. The fixture a run chose is copied once into the run's work
// directory and every target's private copy is made from that pinned copy, so another run rebuilding
// the same default fixture (another --seed: "stale"), or a hand-made replacement, cannot reach a run
// already under way. The pinned copy is verified against the digest the run read at the start: a file
// swapped between that check and the copy is refused, never measured.
import { copyFileSync } from "node:fs";
import { basename, join } from "node:path";
import { FixtureError, readFixtureMeta } from "../../fixtures/meta.js";
import type { FixtureRef } from "./fixtures.js";

let pins = 0;

/** `fixture` copied into workDir and checked; the ref names the copy (`source`: the file it came from). */
export function pinFixture(fixture: FixtureRef, workDir: string): FixtureRef {
  const source = fixture.source ?? fixture.path;
  const pinned = join(workDir, `pinned-${++pins}-${basename(source)}`);
  copyFileSync(source, pinned);
  let digest: string;
  try {
    digest = readFixtureMeta(pinned, { verify: true }).contentSha256;
  } catch (e) {
    if (!(e instanceof FixtureError)) throw e;
    digest = `unreadable (${e.message})`;
  }
  if (digest !== fixture.meta.contentSha256) {
    throw new FixtureError(
      `fixture ${source}: changed while this run was reading it (content ${fixture.meta.contentSha256.slice(0, 12)} at the check, ${digest.slice(0, 12)} in the copy; another run rebuilt or replaced it): start this run again`,
    );
  }
  return { ...fixture, path: pinned, source };
}
