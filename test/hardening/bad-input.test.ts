// The bad-input catalogue: every command and its flags given out-of-range numbers, wrong
// types, unknown flags and enum values, malformed JSON templates, missing/unreadable/non-SQLite
// fixtures and fixtures of another schema version. Each must exit 2 with ONE line that names the
// flag or file and what is allowed, and leave no file behind. Runs the real compiled CLI, but for the
// cases of `fixture` and `fuzz` after their first: those stop at their flags or input files before
// anything starts, so they run through the CLI's main() in this process (the same parser and rules).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../support/cli-in-process.js";
import { runCli } from "./support/harness.js";
import { inputsWithFixtures, listing } from "./support/inputs.js";

let root: string;
let inputs: string;
let inputsBefore: string[];

beforeAll(async () => {
  let good: string;
  ({ root, inputs, good } = inputsWithFixtures("catchup-badinput-"));
  writeFileSync(join(inputs, "text.sqlite"), "hello, I am not a database\n");
  writeFileSync(join(inputs, "empty.sqlite"), "");
  mkdirSync(join(inputs, "dir.sqlite"));
  const foreign = new Database(join(inputs, "foreign.sqlite"));
  foreign.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
  foreign.close();
  writeFileSync(join(inputs, "a-file"), "");
  // A real run directory for the report cases.
  const run = await runCli(
    [
      "bench",
      "--no-memory",
      "--cases",
      "snapshot",
      "--trials",
      "1",
      "--fixture",
      good,
      "--ack-delay-ms",
      "0",
      "--out",
      join(inputs, "run"),
    ],
    60_000,
  );
  expect(run.code, run.stderr).toBe(0);
  mkdirSync(join(inputs, "bad-run"));
  writeFileSync(join(inputs, "bad-run", "results.json"), '{"schema": "catchup-bench/results@1", "latency": [');
  inputsBefore = listing(inputs);
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Case {
  args: string;
  /** What the one line must say: the flag or file, and what is allowed. */
  says: RegExp;
}

// IN/ = the inputs dir (read-only here), OUT/ = this case's own empty scratch dir (also its cwd).
const CASES: Record<string, Case[]> = {
  fixture: [
    { args: "fixture --projects 0 --out OUT/f.sqlite", says: /--projects .*from 1 to 1000000/ },
    { args: "fixture --projects abc --out OUT/f.sqlite", says: /--projects .*from 1 to/ },
    { args: "fixture --projects 1.5 --out OUT/f.sqlite", says: /--projects .*integer/ },
    { args: "fixture --projects -5 --out OUT/f.sqlite", says: /--projects .*from 1 to/ },
    { args: "fixture --projects 1000001 --out OUT/f.sqlite", says: /--projects .*1000000/ },
    { args: "fixture --script-bytes 10 --out OUT/f.sqlite", says: /--script-bytes .*64 to 1048576/ },
    { args: "fixture --script-bytes 2000-1000 --out OUT/f.sqlite", says: /--script-bytes .*MIN <= MAX/ },
    { args: "fixture --script-bytes abc --out OUT/f.sqlite", says: /--script-bytes/ },
    { args: "fixture --scripts-per-project 65 --out OUT/f.sqlite", says: /--scripts-per-project .*1 to 64/ },
    { args: "fixture --events -1 --out OUT/f.sqlite", says: /--events .*from 0 to/ },
    { args: "fixture --seed 4294967296 --out OUT/f.sqlite", says: /--seed .*4294967295/ },
    { args: "fixture --bogus 1 --out OUT/f.sqlite", says: /Unknown argument: bogus.*--help/ },
    { args: "fixture --out IN/good.sqlite", says: /--out .*good\.sqlite already exists.*--force/ },
    { args: "fixture --out IN/a-file/f.sqlite", says: /--out .*writable directory.*ENOTDIR/ },
    {
      args: "fixture --out /proc/catchup-no-such/f.sqlite --projects 5 --events 5",
      says: /--out .*writable directory/,
    },
    { args: "fixture info IN/missing.sqlite", says: /missing\.sqlite: no such file/ },
    { args: "fixture info IN/text.sqlite", says: /text\.sqlite: not a SQLite file/ },
    { args: "fixture info IN/empty.sqlite", says: /empty\.sqlite: not a SQLite file/ },
    { args: "fixture info IN/dir.sqlite", says: /dir\.sqlite: not a regular file/ },
    { args: "fixture info IN/v2.sqlite", says: /v2\.sqlite: schema version 2 is not supported \(expected 1\)/ },
    { args: "fixture info IN/foreign.sqlite", says: /foreign\.sqlite: not a catchup-bench fixture/ },
  ],
  serve: [
    { args: "serve --exit-with-parent", says: /--db FIXTURE is required/ },
    { args: "serve --exit-with-parent --db IN/missing.sqlite", says: /missing\.sqlite: no such file/ },
    { args: "serve --exit-with-parent --db IN/text.sqlite", says: /text\.sqlite: not a SQLite file/ },
    { args: "serve --exit-with-parent --db IN/dir.sqlite", says: /dir\.sqlite: not a regular file/ },
    { args: "serve --exit-with-parent --db IN/v2.sqlite", says: /v2\.sqlite: schema version 2 is not supported/ },
    { args: "serve --exit-with-parent --db IN/foreign.sqlite", says: /foreign\.sqlite: not a catchup-bench fixture/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --port 70000", says: /--port .*0 to 65535/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --port abc", says: /--port .*0 to 65535/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --delivery fast", says: /--delivery .*legacy, batched/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --token x:admin", says: /--token .*orchestration:read/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --max-replay-events -1", says: /--max-replay-events/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --max-replay-bytes 1.5", says: /--max-replay-bytes/ },
    {
      args: "serve --exit-with-parent --db IN/good.sqlite --max-initial-chunk-bytes abc",
      says: /--max-initial-chunk-bytes/,
    },
    { args: "serve --exit-with-parent --db IN/good.sqlite --bogus", says: /Unknown argument: bogus.*usage/ },
    {
      args: "serve --exit-with-parent --db IN/good.sqlite --token",
      says: /^[^\n]*--token needs a value: --token SECRET\[:scope,scope\]/,
    },
    {
      args: "serve --exit-with-parent --db IN/good.sqlite --token --port 0",
      says: /--token needs a value: --token SECRET\[:scope,scope\]/,
    },
    { args: "serve --exit-with-parent --db", says: /--db needs a value: --db FIXTURE/ },
    { args: "serve --exit-with-parent --db IN/good.sqlite --host", says: /--host needs a value: --host HOST/ },
    {
      args: "serve --exit-with-parent --db IN/good.sqlite --delivery",
      says: /--delivery needs a value: --delivery legacy\|batched/,
    },
    {
      args: "serve --exit-with-parent --db IN/good.sqlite --upgrade-timeout-ms 0",
      says: /--upgrade-timeout-ms .*1 to/,
    },
  ],
  bench: [
    { args: "bench --out OUT/b --trials 0", says: /--trials .*1 to 1000/ },
    { args: "bench --out OUT/b --trials abc", says: /--trials .*1 to 1000/ },
    { args: "bench --out OUT/b --ack-delay-ms -1", says: /--ack-delay-ms .*0 to 60000/ },
    { args: "bench --out OUT/b --hold-ms 1e9", says: /--hold-ms .*0 to 60000/ },
    { args: "bench --out OUT/b --clients 0,4", says: /--clients .*from 1 to/ },
    { args: "bench --out OUT/b --clients a", says: /--clients/ },
    { args: "bench --out OUT/b --script-bytes 10", says: /--script-bytes .*64 to/ },
    { args: "bench --out OUT/b --sample-interval-ms 0", says: /--sample-interval-ms .*1 to/ },
    { args: "bench --out OUT/b --trial-timeout-ms 5", says: /--trial-timeout-ms .*100 to/ },
    { args: "bench --out OUT/b --start-timeout-ms x", says: /--start-timeout-ms/ },
    { args: "bench --out OUT/b --seed -1", says: /--seed .*4294967295/ },
    { args: "bench --out OUT/b --cases bogus", says: /--cases .*snapshot, resume-none, resume-one, resume-many/ },
    { args: "bench --out OUT/b --driver bogus", says: /--driver .*node, k6/ },
    { args: "bench --out OUT/b --variants legacy,fast", says: /--variants .*legacy, batched/ },
    { args: "bench --out OUT/b --target noequals", says: /--target .*NAME=COMMAND/ },
    { args: "bench --out OUT/b --target =cmd", says: /--target .*NAME=COMMAND/ },
    { args: "bench --out OUT/b --subscribe-payload {bad", says: /--subscribe-payload .*JSON/ },
    { args: "bench --out OUT/b --probe-payload {", says: /--probe-payload .*JSON/ },
    { args: "bench --out OUT/b --completion bogus", says: /--completion .*FIELD=VALUE or exit/ },
    { args: "bench --out OUT/b --ceiling abc", says: /--ceiling .*number from/ },
    { args: "bench --out OUT/b --ceiling 1.03 --guard bogusMetric", says: /--guard .*completionMs/ },
    { args: "bench --out OUT/b --no-memory --no-latency", says: /--no-memory and --no-latency/ },
    { args: "bench --out OUT/b --bogus", says: /Unknown argument: bogus.*--help/ },
    { args: "bench --out OUT/b --fixtures-dir OUT/b --no-memory", says: /--fixtures-dir .* and --out .* overlap/ },
    { args: "bench --out OUT/b --quick=maybe", says: /--quick=maybe: --quick is a switch; its value is true or false/ },
    { args: "bench --out OUT/b --quick=yes", says: /--quick is a switch; its value is true or false/ },
    { args: "bench --out OUT/b --quick=1", says: /--quick is a switch; its value is true or false/ },
    { args: "bench --out OUT/b --aa=nope", says: /--aa=nope: --aa is a switch; its value is true or false/ },
    { args: "bench --out OUT/b --no-memory --fixture IN/missing.sqlite", says: /missing\.sqlite: no such file/ },
    { args: "bench --out OUT/b --no-memory --fixture IN/text.sqlite", says: /text\.sqlite: not a SQLite file/ },
    { args: "bench --out OUT/b --no-memory --fixture IN/dir.sqlite", says: /dir\.sqlite: not a regular file/ },
    {
      args: "bench --out OUT/b --no-memory --fixture IN/v2.sqlite",
      says: /v2\.sqlite: schema version 2 is not supported/,
    },
    {
      args: "bench --out OUT/b --no-memory --fixture IN/foreign.sqlite",
      says: /foreign\.sqlite: not a catchup-bench fixture/,
    },
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out IN/a-file/run",
      says: /--out .*writable directory.*ENOTDIR/,
    },
    {
      args: "bench --no-memory --fixture IN/good.sqlite --out /proc/catchup-no-such",
      says: /--out .*writable directory/,
    },
  ],
  report: [
    { args: "report IN/missing-run", says: /no results\.json in .*missing-run/ },
    { args: "report IN/dir.sqlite", says: /no results\.json in .*dir\.sqlite/ },
    { args: "report IN/text.sqlite", says: /no results\.json in .*text\.sqlite/ },
    { args: "report IN/bad-run", says: /bad-run.*results\.json/ },
    { args: "report IN/run --ceiling abc", says: /--ceiling .*number from/ },
    { args: "report IN/run --ceiling 1.03 --guard bogus", says: /--guard .*completionMs/ },
    { args: "report IN/run --bogus", says: /Unknown argument: bogus.*--help/ },
    { args: "report", says: /report needs a run directory, or --merge/ },
  ],
  clinic: [
    { args: "clinic bogus --out OUT/c", says: /tool.*doctor, flame, heapprofiler, bubbleprof/ },
    { args: "clinic doctor --out OUT/c --fixture IN/good.sqlite --case bogus", says: /--case .*snapshot, resume-none/ },
    { args: "clinic doctor --out OUT/c --fixture IN/good.sqlite --clients 0", says: /--clients .*from 1 to/ },
    { args: "clinic doctor --out OUT/c --fixture IN/good.sqlite --variant fast", says: /--variant .*legacy, batched/ },
    { args: "clinic doctor --out OUT/c --fixture IN/good.sqlite --duration-s 0", says: /--duration-s .*number from/ },
    { args: "clinic doctor --out OUT/c --fixture IN/good.sqlite --ack-delay-ms -1", says: /--ack-delay-ms .*0 to/ },
    { args: "clinic doctor --out OUT/c --script-bytes abc", says: /--script-bytes/ },
    { args: "clinic doctor --out OUT/c --fixture IN/missing.sqlite", says: /missing\.sqlite: no such file/ },
    { args: "clinic doctor --out OUT/c --fixture IN/text.sqlite", says: /text\.sqlite: not a SQLite file/ },
    { args: "clinic doctor --out OUT/c --fixture IN/v2.sqlite", says: /v2\.sqlite: schema version 2 is not supported/ },
    { args: "clinic doctor --fixture IN/good.sqlite --out IN/a-file/c", says: /--out .*writable directory/ },
    { args: "clinic doctor --out OUT/c --bogus", says: /Unknown argument: bogus.*--help/ },
  ],
  fuzz: [
    { args: "fuzz --seconds 0", says: /--seconds .*1 to 3600/ },
    { args: "fuzz --seconds abc", says: /--seconds .*1 to 3600/ },
    { args: "fuzz --seconds 1.5", says: /--seconds .*integer/ },
    { args: "fuzz --seed -1", says: /--seed .*0 to 4294967295/ },
    { args: "fuzz --connections 0", says: /--connections .*1 to 64/ },
    { args: "fuzz --connections 65", says: /--connections .*1 to 64/ },
    { args: "fuzz --min-frames -1", says: /--min-frames .*0 to/ },
    { args: "fuzz --bogus", says: /Unknown argument: bogus.*--help/ },
  ],
  "(none)": [
    { args: "nosuchcommand", says: /unknown command nosuchcommand; the commands are fixture, bench, / },
    { args: "", says: /Name a command/ },
  ],
};

/** Commands whose cases after the first run in this process (test/support/cli-in-process.ts). */
const IN_PROCESS = new Set(["fixture", "fuzz"]);

describe.concurrent("bad input: exit 2, one line naming the flag or file and what is allowed, no file left", () => {
  for (const [command, cases] of Object.entries(CASES)) {
    for (const [i, c] of cases.entries()) {
      it(`${command}: ${c.args || "(no arguments)"}`, async () => {
        const scratch = mkdtempSync(join(root, "case-"));
        const args = c.args
          .split(" ")
          .filter(Boolean)
          .map((a) => a.replace(/^IN\//, `${inputs}/`).replace(/^OUT\//, `${scratch}/`));
        // serve starts a server on success; --exit-with-parent and the CLI's /dev/null stdin bound it.
        const r = IN_PROCESS.has(command) && i > 0 ? await runMain(args) : await runCli(args, 30_000, {}, scratch);
        const lines = r.stderr.trimEnd().split("\n");
        expect(r.code, `stderr: ${r.stderr}`).toBe(2);
        expect(lines, r.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(c.says);
        expect(lines[0]).not.toMatch(/\s+at .*\(.*:\d+:\d+\)/); // no stack trace
        expect(listing(scratch), "files left behind").toEqual([]);
        rmSync(scratch, { recursive: true, force: true });
      });
    }
  }
});

describe("inputs", () => {
  it("no case wrote into the inputs (fixtures, run directory) — checked after the catalogue", () => {
    expect(listing(inputs)).toEqual(inputsBefore);
  });
});
