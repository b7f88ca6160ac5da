// Default fixtures are built when missing and rebuilt when they do not match what the run asks for.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { readFixtureMeta } from "../../fixtures/meta.js";
import { BENCH_THREADS, ensureFixture, privateCopy } from "../../scripts/bench/fixtures/fixtures.js";
import { sweepStaleWorkDirs } from "../../scripts/bench/fixtures/run-fixtures.js";
import type { TargetSpec } from "../../scripts/bench/run/config.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("ensureFixture", () => {
  it("builds a missing fixture, reuses it, and rebuilds it for another seed, other threads or a broken file", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-fx-"));
    const builds: string[] = [];
    const onBuild = (_path: string, why: string) => builds.push(why);
    const first = ensureFixture(dir, 12, 64, 10, 1, onBuild);
    expect(first.path).toBe(join(dir, "p12-s64-e10.sqlite"));
    expect([first.meta.projects, first.meta.events, first.meta.seed]).toEqual([12, 10, 1]);
    ensureFixture(dir, 12, 64, 10, 1, onBuild);
    expect(builds).toEqual(["missing"]);
    const reseeded = ensureFixture(dir, 12, 64, 10, 2, onBuild);
    expect(reseeded.meta.seed).toBe(2);
    // The same parameters without the thread cases' threads (as built before threads existed).
    generateFixture({
      projects: 12,
      scriptBytesMin: 64,
      scriptBytesMax: 64,
      scriptsPerProject: 1,
      events: 10,
      seed: 2,
      out: first.path,
      force: true,
    });
    expect(ensureFixture(dir, 12, 64, 10, 2, onBuild).meta.threads).toBe(BENCH_THREADS.threads);
    writeFileSync(first.path, "not sqlite");
    expect(ensureFixture(dir, 12, 64, 10, 2, onBuild).meta.seed).toBe(2);
    // A damaged page (truncated file) and rows edited behind the metadata's back are "corrupt" too.
    writeFileSync(first.path, readFileSync(first.path).subarray(0, 4096));
    expect(ensureFixture(dir, 12, 64, 10, 2, onBuild).meta.seed).toBe(2);
    const db = new Database(first.path);
    db.prepare("UPDATE orchestration_events SET occurred_at = 'x' WHERE sequence = 2").run();
    db.close();
    expect(ensureFixture(dir, 12, 64, 10, 2, onBuild).meta.seed).toBe(2);
    const stale = "stale: other generator version, seed or threads";
    expect(builds).toEqual(["missing", stale, stale, "corrupt", "corrupt", "corrupt"]);
  });

  it("gives each target its own copy: of the fixture, or of its variant's seeded state folder", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-fx-"));
    const f = ensureFixture(dir, 5, 64, 3, 1);
    const plain: TargetSpec = { name: "app", kind: "command", command: "srv {db}" };
    const a = privateCopy(f, plain, join(dir, "work"), "legacy").db;
    const b = privateCopy(f, plain, join(dir, "work"), "legacy").db;
    expect(a).not.toBe(b);
    expect(readFixtureMeta(a).contentSha256).toBe(f.meta.contentSha256);
    const template = join(dir, "template");
    mkdirSync(join(template, "data"), { recursive: true });
    writeFileSync(join(template, "data", "store"), "seeded");
    const seeded: TargetSpec = {
      ...plain,
      seeded: { templates: { [f.path]: { dir: template, token: "t" } }, records: [] },
    };
    const first = privateCopy(f, seeded, join(dir, "work"), "app");
    expect(first.token).toBe("t");
    const s1 = first.db;
    const s2 = privateCopy(f, seeded, join(dir, "work"), "app").db;
    expect(s1).not.toBe(s2);
    expect(readFileSync(join(s1, "data", "store"), "utf8")).toBe("seeded");
    writeFileSync(join(s1, "data", "store"), "written by a trial");
    expect(readFileSync(join(s2, "data", "store"), "utf8")).toBe("seeded");
  });
});

describe("sweepStaleWorkDirs", () => {
  it("removes the work directories of dead harnesses only", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-sweep-"));
    const dead = join(dir, "catchup-bench-2147483600-abc");
    const mine = join(dir, `catchup-bench-${process.pid}-def`);
    const other = join(dir, "catchup-bench-notapid");
    for (const d of [dead, mine, other]) mkdirSync(d);
    sweepStaleWorkDirs(dir);
    expect([existsSync(dead), existsSync(mine), existsSync(other)]).toEqual([false, true, true]);
  });
});
