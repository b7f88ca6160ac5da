// Every k6 script and every module it loads parses at the language level of the oldest k6 the
// scripts support, so a newer construct cannot slip in and fail only on a user's k6. Each script
// states that minimum version and imports the stable k6/websockets that defines it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Node, parse } from "acorn";
import { describe, expect, it } from "vitest";
import { ECMA_VERSION, K6_MINIMUM_VERSION } from "../../scenarios/lib/requirements.js";
import { ROOT } from "../support/server.js";

// CATCHUP_SCENARIOS_DIR points the test at another copy (to see it fail against an old version).
const SCENARIOS = process.env.CATCHUP_SCENARIOS_DIR ?? join(ROOT, "scenarios");
const scripts = readdirSync(SCENARIOS).filter((f) => f.endsWith(".js"));
const libs = readdirSync(join(SCENARIOS, "lib")).filter((f) => f.endsWith(".js"));
const files = [...scripts.map((f) => join(SCENARIOS, f)), ...libs.map((f) => join(SCENARIOS, "lib", f))];

/** Parses as k6 loads a file: an ES module at the supported level; throws with the position. */
function parseAtK6Level(source: string): Node {
  return parse(source, { ecmaVersion: ECMA_VERSION as 2021, sourceType: "module" });
}

/** Node types anywhere in the tree (a tiny walk: every object-valued property). */
function nodeTypes(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) nodeTypes(n, out);
  else if (node && typeof node === "object") {
    const type = (node as { type?: unknown }).type;
    if (typeof type === "string") out.add(type);
    for (const v of Object.values(node)) if (v && typeof v === "object") nodeTypes(v, out);
  }
  return out;
}

describe(`k6 scripts parse at ES${ECMA_VERSION} (k6 >= ${K6_MINIMUM_VERSION})`, () => {
  it("finds the scripts and their modules", () => {
    expect(scripts).toEqual(expect.arrayContaining(["memory.js", "resume.js", "snapshot.js", "scaleout.js"]));
    expect(libs).toEqual(expect.arrayContaining(["session.js", "summary.js", "env.js"]));
  });

  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))("%s", (_name, file) => {
    const tree = parseAtK6Level(readFileSync(file, "utf8"));
    // import() parses at ES2020, but k6 resolves modules before the run: only static imports.
    expect(nodeTypes(tree).has("ImportExpression")).toBe(false);
  });

  it("the level bites: ES2022 class fields and top-level await are refused", () => {
    expect(() => parseAtK6Level("class A { x = 1 }")).toThrow(SyntaxError);
    expect(() => parseAtK6Level("await Promise.resolve(1);")).toThrow(SyntaxError);
    expect(() => parseAtK6Level("let a = null; a ??= 1_000;")).not.toThrow();
  });
});

describe("each script states the k6 it needs", () => {
  it.each(scripts)("%s", (script) => {
    const source = readFileSync(join(SCENARIOS, script), "utf8");
    expect(source).toContain(`Needs k6 >= ${K6_MINIMUM_VERSION}`);
    expect(source).toMatch(/from "k6\/websockets"/);
    // No promise that an older k6 works with another import: older k6 lacks k6/websockets.
    expect(source).not.toMatch(/k6 < |experimental\/websockets/);
  });
});
