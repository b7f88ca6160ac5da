// Test aid for the bad-input walks: a scratch folder of inputs holding a good fixture and a copy of it
// that claims another schema version, and a listing of a folder that shows any write under it.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import Database from "better-sqlite3";
import { generateFixture } from "../../../fixtures/generate.js";

/** Every entry under dir with its type, size and mtime (a FIFO is listed, never opened). */
export function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(p);
      } catch {
        out.push(`${relative(dir, p)} dangling`);
        continue;
      }
      const kind = st.isDirectory() ? "dir" : st.isFIFO() ? "fifo" : st.isFile() ? `${st.size} ${st.mtimeMs}` : "other";
      out.push(`${relative(dir, p)} ${kind}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * A fresh root (mkdtemp with `prefix`) and its `in` folder holding good.sqlite (20 projects,
 * 256-byte scripts) and v2.sqlite (the same with schema_version 2).
 */
export function inputsWithFixtures(prefix: string): { root: string; inputs: string; good: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const inputs = join(root, "in");
  mkdirSync(inputs);
  const good = join(inputs, "good.sqlite");
  generateFixture({
    projects: 20,
    scriptBytesMin: 256,
    scriptBytesMax: 256,
    scriptsPerProject: 1,
    events: 20,
    seed: 5,
    out: good,
  });
  cpSync(good, join(inputs, "v2.sqlite"));
  const v2 = new Database(join(inputs, "v2.sqlite"));
  v2.prepare("UPDATE fixture_meta SET value = '2' WHERE key = 'schema_version'").run();
  v2.close();
  return { root, inputs, good };
}
