// The harness names itself by the commit its build recorded (dist/build-info.json), and says when that
// build had uncommitted changes: a report must not name a commit whose code it did not run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { harnessOf } from "../../scripts/bench/run/command-line.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A package root whose build recorded `info`. */
function rootWith(info: Record<string, unknown> | null): string {
  const root = mkdtempSync(join(tmpdir(), "catchup-harness-"));
  roots.push(root);
  writeFileSync(join(root, "package.json"), JSON.stringify({ version: "1.2.3" }));
  if (info) {
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist", "build-info.json"), JSON.stringify(info));
  }
  return root;
}

const COMMIT = "0123456789abcdef0123456789abcdef01234567";

describe("harnessOf", () => {
  it("names the built commit, and marks a build with uncommitted changes", () => {
    expect(harnessOf(rootWith({ commit: COMMIT }))).toEqual({ harnessVersion: "1.2.3", gitCommit: COMMIT });
    expect(harnessOf(rootWith({ commit: COMMIT, dirty: true }))).toEqual({
      harnessVersion: "1.2.3",
      gitCommit: COMMIT,
      gitDirty: true,
    });
  });

  it("names no commit (and so no changes) without a valid recorded one", () => {
    expect(harnessOf(rootWith(null))).toEqual({ harnessVersion: "1.2.3", gitCommit: null });
    expect(harnessOf(rootWith({ commit: "main", dirty: true }))).toEqual({ harnessVersion: "1.2.3", gitCommit: null });
  });
});
