// The refusals a new user met as stack traces or contradictions, each now one line naming what is
// wrong and what to do: an unknown command, `init --force` onto a folder, a full temp directory, a
// temp directory whose path is too long for SQLite, a number in range written with an exponent.
// Real processes (TMPDIR is read by the child), a real tmpfs for the full disk (the tests run as root).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../hardening/support/harness.js";
import { quickArgs } from "../refs/support.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

let fixtures: TempFixtures;
let fixture: string;
const mounts: string[] = [];

beforeAll(() => {
  fixtures = tempFixtures("catchup-one-line");
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 256, events: 20, seed: 3 });
});

afterAll(() => {
  for (const dir of mounts) execFileSync("umount", ["-l", dir], { stdio: "pipe" });
  fixtures?.cleanup();
});

/** The one line on stderr (no stack trace), with the exit code. */
async function oneLine(args: string[], env: Record<string, string> = {}, cwd?: string) {
  const r = await runCli(args, 120_000, env, cwd);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  const lines = r.stderr
    .trimEnd()
    .split("\n")
    .filter((l) => !/^(\[\d+\/\d+( \+ \d+\/\d+ added)?\] |building fixture )/.test(l));
  expect(lines, r.stderr).toHaveLength(1);
  return { code: r.code, line: lines[0] as string };
}

const bench = (out: string) => ["bench", ...quickArgs(fixture), "--out", out];

describe("one line, not a stack trace or a contradiction", () => {
  it("an unknown command is named as one, with the commands there are", async () => {
    const r = await oneLine(["bogus", "--json"]);
    expect(r.code).toBe(2);
    expect(r.line).toBe(
      "catchup-bench: unknown command bogus; the commands are fixture, bench, fuzz, report, clinic, serve, k6-operator, sample, init, history, bisect, cache (see --help)",
    );
    const slip = await oneLine(["benh", "--quick"]);
    expect(slip.line).toMatch(/^catchup-bench: unknown command benh \(did you mean bench\?\); the commands are /);
  });

  it("init --force onto a folder of the config's name refuses to replace a folder", async () => {
    const cwd = join(fixtures.dir, "init-folder");
    mkdirSync(join(cwd, "catchup-bench.config.json"), { recursive: true });
    const r = await oneLine(["init", "--force"], {}, cwd);
    expect(r.code).toBe(2);
    expect(r.line).toBe(
      `catchup-bench: ${join(cwd, "catchup-bench.config.json")} is a folder, not a file: move it away (init --force replaces a file only)`,
    );
    expect(readdirSync(cwd)).toEqual(["catchup-bench.config.json"]);
  });

  it("a full temp directory is said as such, naming TMPDIR, before any trial (exit 2)", async () => {
    const tmp = join(fixtures.dir, "small-tmp");
    mkdirSync(tmp);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", tmp], { stdio: "pipe" });
    mounts.push(tmp);
    const r = await oneLine(bench(join(fixtures.dir, "run-full")), { TMPDIR: tmp });
    expect(r.code).toBe(2);
    expect(r.line).toMatch(
      new RegExp(
        `^catchup-bench: disk full: cannot write ${tmp}/catchup-bench-\\d+-\\w+/pinned-1-f\\.sqlite \\(ENOSPC\\): the temp directory \\(TMPDIR\\) is full; free space there or set TMPDIR to a folder with room$`,
      ),
    );
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("a temp directory whose path is too long for SQLite says it is SQLite's limit", async () => {
    let tmp = fixtures.dir;
    while (tmp.length < 481) tmp = join(tmp, "d".repeat(Math.min(100, 481 - tmp.length)));
    mkdirSync(tmp, { recursive: true });
    const r = await oneLine(bench(join(fixtures.dir, "run-long")), { TMPDIR: tmp });
    expect(r.code).toBe(2);
    expect(r.line).toMatch(
      /^catchup-bench: the temp directory .* \(TMPDIR\) is 4\d\d bytes long: the run's copies of the fixture go up to \d+ bytes below it, and SQLite opens no file whose path is longer than 504 bytes; set TMPDIR to a shorter path$/,
    );
    expect(existsSync(join(fixtures.dir, "run-long"))).toBe(false);
  });

  it("a number in range is taken in any notation, from a flag or the config file", async () => {
    const cwd = join(fixtures.dir, "exponent");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "catchup-bench.config.json"), '{"leak-threshold-kib": 1e-7}\n');
    const r = await runCli(
      [...bench(join(cwd, "run")), "--storm-resume-ratio", "1e-7", "--trial-timeout-ms", "6e4"],
      120_000,
      {},
      cwd,
    );
    expect(r.stderr).not.toMatch(/must be (a number|an integer)/);
    expect(r.code, r.stderr).toBe(0);
  }, 150_000);
});
