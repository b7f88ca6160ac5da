// Test support: a small fixture for the scenario tests. 600 projects so a 1,000-event replay
// coalesces to 600 items, more than one legacy replay chunk (512): chunk counts 2/2/3/4.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uniformFixture } from "../../../fixtures/generate.js";

export function smallFixture(): { path: string; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "catchup-scenarios-"));
  const path = join(dir, "fixture.sqlite");
  uniformFixture({ projects: 600, scriptBytes: 256, events: 1000, seed: 7, out: path });
  return { path, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
