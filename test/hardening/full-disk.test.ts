// A full disk at every place a run writes: the journal (results.jsonl), results.json, the reports,
// a fixture. Each is one line naming the file and "disk full" (no stack), exit 3 once a trial ran
// (2 before), the journal ends on a whole line, no temp file is left, and `report` on a copy of the
// folder (once there is room) says where the disk filled.
//
// Real full disks: small tmpfs mounts (the tests run as root; tmpfs hands out 4 KiB pages). A run
// keeps one page in reserve (.disk-reserve, freed when the disk fills or the run finishes), so the
// journal's last line can say why it ends. 4 KiB takes the run line but not the reserve; 8 KiB a
// journal page and the reserve (four rounds overflow the journal); 12 KiB the reserve and a one-round
// journal (about 4 KiB, so it may take a second page: room is left for it) but not that round's
// results.json (about 8.6 KiB); 48 KiB results.json but not report.html (its inlined chart library alone is larger); 1 MiB
// is less than the default fixture.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveProfile } from "../../scripts/bench/memory/attribute.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { runCli } from "./support/harness.js";

let fixtures: TempFixtures;
let root: string;
let fixture: string;
const mounts: string[] = [];

/** A fresh tmpfs of `size` under the test root (unmounted in afterAll). */
function smallDisk(name: string, size: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (e) {
    throw new Error(`this test needs root to mount a ${size} tmpfs at ${dir}: ${(e as Error).message}`);
  }
  mounts.push(dir);
  return dir;
}

beforeAll(() => {
  fixtures = tempFixtures("catchup-full");
  root = fixtures.dir;
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 256, events: 20, seed: 3 });
});

afterAll(() => {
  for (const dir of mounts) {
    try {
      execFileSync("umount", [dir], { stdio: "pipe" });
    } catch {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" }); // a straggler still holds a file: detach it
    }
  }
  fixtures?.cleanup();
});

const bench = (out: string, trials: number) =>
  runCli(
    [
      "bench",
      "--no-memory",
      "--latency-sequential",
      "0",
      "--cases",
      "snapshot",
      "--trials",
      String(trials),
      "--fixture",
      fixture,
      "--out",
      out,
    ],
    180_000,
  );

/**
 * The one line on stderr that is not a progress line ("[i/N] …", "building fixture …", the expected
 * and the actual run time); no stack trace anywhere.
 */
function errorLine(stderr: string): string {
  expect(stderr).not.toMatch(/\s+at .*(\(.*:\d+:\d+\)|:\d+:\d+$)|Unhandled|SqliteError/m);
  const lines = stderr
    .trimEnd()
    .split("\n")
    .filter(
      (l) => !/^(\[\d+\/\d+( \+ \d+\/\d+ added)?\] |building fixture |catchup-bench: (expected )?run time )/.test(l),
    );
  expect(lines, stderr).toHaveLength(1);
  return lines[0] as string;
}

/** Every line of the journal parses and it ends on a newline: a whole line, never half a row. */
function journalLines(run: string): { kind: string; reason?: string }[] {
  const text = readFileSync(join(run, "results.jsonl"), "utf8");
  expect(text.endsWith("\n"), "the journal ends on a whole line").toBe(true);
  return text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
}

const noTemps = (dir: string) => expect(readdirSync(dir).filter((f) => /\.tmp-\d+/.test(f))).toEqual([]);

/** `report` on a copy of the run (off the full disk): its "Stopped early" names where the disk filled. */
async function reportOfCopy(run: string): Promise<string> {
  const copy = mkdtempSync(join(root, "copy-"));
  cpSync(run, copy, { recursive: true });
  const r = await runCli(["report", copy]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe.concurrent("a full disk: one line naming the file, the journal whole, nothing torn", () => {
  it("4 KiB: the run's first line fits, its reserve does not: nothing ran, exit 2, one line", async () => {
    const run = join(smallDisk("d4k", "4k"), "run");
    const r = await bench(run, 1);
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r.stderr)).toMatch(/^catchup-bench: disk full: cannot write .*\.disk-reserve \(ENOSPC\)$/);
    noTemps(run);
  }, 240_000);

  it("8 KiB: the journal fills at a row; exit 3, the journal keeps the trials before it and the reason", async () => {
    const run = join(smallDisk("d8k", "8k"), "run");
    const r = await bench(run, 4);
    expect(r.code, r.stderr).toBe(3);
    const line = errorLine(r.stderr);
    const m = /disk full at trial (\d+): cannot write .*results\.jsonl \(ENOSPC\)/.exec(line);
    expect(m, line).not.toBeNull();
    const trial = Number(m?.[1]);
    const lines = journalLines(run);
    expect(lines.filter((l) => l.kind === "latency")).toHaveLength(trial - 1);
    expect(lines.at(-1)).toMatchObject({ kind: "stop", reason: expect.stringMatching(/^disk full at trial/) });
    noTemps(run);
    expect(await reportOfCopy(run)).toContain(`disk full at trial ${trial}`);
    // `report` on the full disk itself: the same one line about the report it cannot write, exit 3.
    const before = readdirSync(run).sort();
    const rep = await runCli(["report", run]);
    expect(rep.code).toBe(3);
    expect(errorLine(rep.stderr)).toMatch(/disk full writing the reports: cannot write .*report\.(md|html)/);
    expect(readdirSync(run).sort()).toEqual(before);
  }, 240_000);

  it("12 KiB, one round: results.json does not fit; exit 3, every row and the reason are in the journal", async () => {
    const run = join(smallDisk("d12k-1", "12k"), "run");
    const r = await bench(run, 1);
    expect(r.code, r.stderr).toBe(3);
    expect(errorLine(r.stderr)).toMatch(/disk full after trial 3: cannot write .*results\.json \(ENOSPC\)/);
    const lines = journalLines(run);
    expect(lines.filter((l) => l.kind === "latency")).toHaveLength(3);
    expect(readdirSync(run)).not.toContain("results.json");
    noTemps(run);
    expect(await reportOfCopy(run)).toContain("disk full after trial 3");
  }, 240_000);

  it("48 KiB: the reports do not fit; exit 3, results.json whole with every row", async () => {
    const run = join(smallDisk("d48k", "48k"), "run");
    const r = await bench(run, 2);
    expect(r.code, r.stderr).toBe(3);
    expect(errorLine(r.stderr)).toMatch(/disk full writing the reports: cannot write .*report\.(md|html) \(ENOSPC\)/);
    const results = JSON.parse(readFileSync(join(run, "results.json"), "utf8"));
    expect(results.latency.length + results.aa.latency.length).toBe(6);
    expect(journalLines(run).filter((l) => l.kind === "latency")).toHaveLength(6);
    noTemps(run);
  }, 240_000);

  it("1 MiB: `fixture` fills the disk; exit 3, one line, no temp file left", async () => {
    const disk = smallDisk("d1m", "1m");
    const r = await runCli(["fixture", "--out", join(disk, "f.sqlite")], 120_000);
    expect(r.code, r.stderr).toBe(3);
    expect(errorLine(r.stderr)).toMatch(/fixture disk full: cannot write .*f\.sqlite \(ENOSPC\)/);
    expect(readdirSync(disk)).toEqual([]);
  });

  it("1 MiB as --fixtures-dir: the fixture build fills it before any trial; exit 2, one line", async () => {
    const disk = smallDisk("d1m-fx", "1m");
    const r = await runCli(
      ["bench", "--no-memory", "--cases", "snapshot", "--fixtures-dir", disk, "--out", join(root, "fx-run")],
      120_000,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r.stderr)).toMatch(/disk full: cannot write .*\.sqlite \(ENOSPC\)/);
    expect(readdirSync(disk)).toEqual([]);
  });

  it("8 KiB under `sample`: one line, exit 3, the samples file ends on a whole line and still merges", async () => {
    const file = join(smallDisk("d8k-sample", "8k"), "agent.jsonl");
    // This test's own process is the target (RSS only): the file fills in about a second at 10 ms.
    const r = await runCli(["sample", "--pid", String(process.pid), "--out", file, "--duration", "60"], 90_000);
    expect(r.code, r.stderr).toBe(3);
    expect(errorLine(r.stderr)).toMatch(
      /^catchup-bench: disk full: cannot write .*agent\.jsonl \(ENOSPC\); sampling stopped/,
    );
    const text = readFileSync(file, "utf8");
    expect(text.endsWith("\n"), "the file ends on a whole line").toBe(true);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => typeof l.rss === "number").length).toBeGreaterThan(10);
    const summary = join(root, "summary-full.json");
    writeFileSync(summary, JSON.stringify(RUNNER_SUMMARY));
    const merged = await runCli(["report", "--merge", summary, "--samples", file]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/agent\.jsonl: the agent did not end cleanly|\| [\d.]+ \| [\d.]+ \|/);
  }, 120_000);
});

describe("a full disk under `report --merge --out`", () => {
  it("4 KiB: one line naming the merged file and 'disk full', exit 3, no temp file, nothing half-written", async () => {
    const out = join(smallDisk("d4k-merge", "4k"), "merged");
    const summary = join(root, "summary-merge.json");
    writeFileSync(summary, JSON.stringify(RUNNER_SUMMARY));
    const wall = 1_800_000_000_000;
    const samples = join(root, "agent-merge.jsonl");
    const lines = [{ t: 0, phase: "agent", pid: 1, host: "h", heap: false, wall }];
    for (let t = 10; t < 2000; t += 10) lines.push({ t, rss: 1_000_000 + t, wall: wall + t } as never);
    writeFileSync(samples, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const r = await runCli(["report", "--merge", summary, "--samples", samples, "--out", out]);
    expect(r.code, r.stderr).toBe(3);
    expect(errorLine(r.stderr)).toMatch(
      /^catchup-bench: disk full writing the merge: cannot write .*merged\.(json|md|html) \(ENOSPC\); nothing of the merge was written$/,
    );
    expect(r.stdout).toBe("");
    expect(readdirSync(out)).toEqual([]);
  });
});

describe("a full disk under --attribute's profiles", () => {
  it("4 KiB: a profile that does not fit leaves no temp file (its row says why)", () => {
    const run = smallDisk("d4k-profile", "4k");
    const profile = { head: { callFrame: { functionName: "x".repeat(20_000) }, selfSize: 1, children: [] } };
    expect(() => saveProfile(run, "attribute-m-1", profile)).toThrow(/ENOSPC/);
    expect(readdirSync(join(run, "profiles"))).toEqual([]);
  });
});

/** A one-session runner summary, for `report --merge`. */
const RUNNER_SUMMARY = {
  schema: "catchup-bench/k6-summary@1",
  scenario: "scaleout",
  sessions: 1,
  rows: [{ ok: true, completionMs: 10, firstChunkMs: 5, chunks: 1, values: 1, bytes: 1, probeMs: 1, error: null }],
  figures: { completionMs: { count: 1, min: 10, max: 10, avg: 10, med: 10 }, probeMs: null, errors: 0 },
};
