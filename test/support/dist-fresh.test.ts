// `npm test` tests the code as edited: the integration project's global setup compiles the sources,
// so every compiled file in dist/ is at least as new as its source when the tests run. Without that
// setup, an edit after the last build leaves dist/ stale and this test names the stale files.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SOURCES = ["fixtures", "server-under-test", "scripts", "scenarios/lib"];

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "data" ? [] : sourcesUnder(path);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("dist/ is built from the sources under test", () => {
  it("has a compiled file at least as new as each source", () => {
    const stale: string[] = [];
    for (const source of SOURCES.flatMap((d) => sourcesUnder(join(ROOT, d)))) {
      const rel = relative(ROOT, source).replace(/\.ts$/, ".js");
      let built: number;
      try {
        built = statSync(join(ROOT, "dist", rel)).mtimeMs;
      } catch {
        stale.push(`${rel} (missing)`);
        continue;
      }
      if (built < statSync(source).mtimeMs) stale.push(rel);
    }
    expect(stale).toEqual([]);
  });
});
