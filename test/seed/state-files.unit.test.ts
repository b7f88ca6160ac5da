// A seeded state as files, on a real folder: copied as it is (a relative link stays relative, so a
// write through the copy's link lands in the copy), listed with digests, and checked for links that
// would let a copy reach the template or beyond; the key a kept template is reused under.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyChanges, type TemplateKey } from "../../scripts/bench/seed/seed-cache.js";
import { moduleFiles } from "../../scripts/seed/module-graph.js";
import { copyState, firstDifference, sharedLink, stateEntries } from "../../scripts/seed/state-files.js";

const dir = mkdtempSync(join(tmpdir(), "state-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A state folder whose store sits behind a relative link: current -> v1. */
function linkedState(name: string): string {
  const state = join(dir, name);
  mkdirSync(join(state, "v1"), { recursive: true });
  writeFileSync(join(state, "v1", "store.log"), "seeded\n");
  symlinkSync("v1", join(state, "current"));
  return state;
}

describe("a copy of a state folder", () => {
  it("keeps a relative link relative, so writes through the copy's link stay in the copy", () => {
    const template = linkedState("template");
    const copy = join(dir, "copy");
    copyState(template, copy);
    expect(readlinkSync(join(copy, "current"))).toBe("v1");
    appendFileSync(join(copy, "current", "store.log"), "a trial's write\n");
    expect(readFileSync(join(template, "v1", "store.log"), "utf8")).toBe("seeded\n");
    expect(firstDifference(stateEntries(template), stateEntries(copy))).toBe("v1/store.log: 23 bytes, was 7");
  });
});

describe("a state folder's links", () => {
  it("may stay inside it, relative", () => {
    expect(sharedLink(stateEntries(linkedState("inside")))).toBeNull();
  });

  it("are refused when absolute or leading out of it", () => {
    const state = linkedState("outside");
    symlinkSync("../../elsewhere", join(state, "v1", "up"));
    expect(sharedLink(stateEntries(state))).toBe(
      "v1/up -> ../../elsewhere leads outside it: every trial's copy would share what it points at",
    );
    const abs = linkedState("absolute");
    symlinkSync(join(abs, "v1"), join(abs, "pinned"));
    expect(sharedLink(stateEntries(abs))).toBe(
      `pinned -> ${join(abs, "v1")} is absolute: every trial's copy would lead to the same place`,
    );
  });
});

describe("the first difference from a recorded listing", () => {
  it("names a file emptied, changed, missing or added, and a link moved", () => {
    const state = linkedState("listed");
    const was = stateEntries(state);
    expect(firstDifference(was, stateEntries(state))).toBeNull();
    writeFileSync(join(state, "v1", "store.log"), "SEEDED\n");
    expect(firstDifference(was, stateEntries(state))).toBe("v1/store.log: its content changed (same size)");
    writeFileSync(join(state, "v1", "store.log"), "");
    expect(firstDifference(was, stateEntries(state))).toBe("v1/store.log: 0 bytes, was 7");
    rmSync(join(state, "current"));
    symlinkSync("v2", join(state, "current"));
    expect(firstDifference(was, stateEntries(state))).toBe("current: a link to v2, was to v1");
    rmSync(join(state, "current"));
    expect(firstDifference(was, stateEntries(state))).toBe("current: missing");
    const now = [...was, { path: "extra", kind: "dir" as const }];
    expect(firstDifference(was, now)).toBe("extra: added");
  });
});

describe("the key a kept template is reused under", () => {
  const key: TemplateKey = {
    format: 2,
    binding: { "b.mjs": "sha256:1", "helper.mjs": "sha256:2", "package effect": "version 3.22.4" },
    options: { node: "/opt/node" },
    start: "node server.mjs --state {state}",
  };
  it("matches itself", () => {
    expect(keyChanges(key, key)).toEqual([]);
  });

  it("names each input that changed", () => {
    expect(keyChanges(key, { ...key, binding: { ...key.binding, "helper.mjs": "sha256:3" } })).toEqual([
      "another binding (helper.mjs changed)",
    ]);
    expect(keyChanges(key, { ...key, binding: { ...key.binding, "package effect": "version 3.23.0" } })).toEqual([
      "another binding (package effect changed)",
    ]);
    expect(keyChanges(key, { ...key, options: { node: "/usr/bin/node" } })).toEqual([
      "another --binding-option (node)",
    ]);
    expect(keyChanges(key, { ...key, options: {} })).toEqual(["another --binding-option (node)"]);
    expect(keyChanges(key, { ...key, start: "node server.mjs --state {state} --fast" })).toEqual([
      "another start command",
    ]);
    expect(keyChanges({}, key)).toEqual(["an earlier version of catchup-bench"]);
  });
});

describe("the files a binding's seed depends on", () => {
  it("follow its local imports (static and literal dynamic ones) and count packages by version", async () => {
    const b = join(dir, "binding");
    mkdirSync(join(b, "lib"), { recursive: true });
    writeFileSync(
      join(b, "main.mjs"),
      `import fs from "node:fs";\nimport { a } from "./lib/a.mjs";\nimport * as Effect from "effect/Effect";\nexport default { a, later: () => import("./lib/b.mjs") };\n`,
    );
    writeFileSync(join(b, "lib", "a.mjs"), `export { b } from "./b.mjs";\nexport const a = 1;\n`);
    writeFileSync(join(b, "lib", "b.mjs"), `export const b = 2;\n`);
    symlinkSync(join(process.cwd(), "node_modules"), join(b, "node_modules"));
    const files = await moduleFiles(join(b, "main.mjs"));
    expect(Object.keys(files)).toEqual(["lib/a.mjs", "lib/b.mjs", "main.mjs", "package effect"]);
    expect(files["package effect"]).toMatch(/^version 3\./);
    writeFileSync(join(b, "lib", "b.mjs"), `export const b = 3;\n`);
    const after = await moduleFiles(join(b, "main.mjs"));
    expect(after["lib/b.mjs"]).not.toBe(files["lib/b.mjs"]);
    expect(after["main.mjs"]).toBe(files["main.mjs"]);
  });
});
