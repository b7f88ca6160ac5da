// Progress and log output must never decide a run's fate: a bench whose stderr reader goes away after
// the first progress line (`2>&1 | head -1`), whose stdout reader is gone before the report is printed,
// or whose stdout is a full device (/dev/full: every write fails with ENOSPC) finishes every trial,
// writes results.json and the reports, and exits with the run's own code.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPlannedMemoryRounds } from "../support/bench-args.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { CLI, rowsOf } from "./support/harness.js";

let fixtures: TempFixtures;
let root: string;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-pipes");
  root = fixtures.dir;
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 256, events: 20, seed: 3 });
});

afterAll(() => {
  fixtures?.cleanup();
});

const benchArgs = (out: string) => [
  CLI,
  "bench",
  ...withPlannedMemoryRounds([
    "--no-memory",
    "--cases",
    "snapshot",
    "--trials",
    "2",
    "--fixture",
    fixture,
    "--out",
    out,
  ]),
];

/** The run folder holds all 6 trials (2 × legacy, batched, A/A copy), in results.json as in the journal. */
function expectWholeRun(out: string): void {
  expect(existsSync(join(out, "results.json")), "results.json").toBe(true);
  expect(existsSync(join(out, "report.md")), "report.md").toBe(true);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  const journaled = rowsOf(join(out, "results.jsonl"));
  expect(results.latency.length + (results.aa?.latency.length ?? 0)).toBe(6);
  expect(journaled).toHaveLength(6);
}

describe.concurrent("a closed or full output stream loses only that output", () => {
  it("stderr closed by its reader after the first progress line: every trial runs, exit 0", async () => {
    const out = join(root, "stderr-closed");
    const child = spawn(process.execPath, benchArgs(out), { stdio: ["ignore", "ignore", "pipe"] });
    // `2>&1 | head -1`: read one line, then close the read end.
    await new Promise<void>((resolve) => {
      let seen = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        seen += d;
        if (seen.includes("\n")) {
          child.stderr.destroy();
          resolve();
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(0);
    expectWholeRun(out);
  }, 120_000);

  it("stdout closed by its reader before anything is printed: every trial runs, exit 0", async () => {
    const out = join(root, "stdout-closed");
    const child = spawn(process.execPath, benchArgs(out), { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/Unhandled|\s+at .*:\d+:\d+/);
    expectWholeRun(out);
  }, 120_000);

  it("stdout on a full device (/dev/full): every trial runs, one line says stdout was lost, exit 0", async () => {
    const out = join(root, "stdout-full");
    const full = openSync("/dev/full", "w");
    const child = spawn(process.execPath, benchArgs(out), { stdio: ["ignore", full, "pipe"] });
    closeSync(full);
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/Unhandled|\s+at .*:\d+:\d+/);
    expect(stderr.match(/stdout cannot be written \(ENOSPC\)/g)).toHaveLength(1);
    expectWholeRun(out);
  }, 120_000);

  it("`sample` with stdout and stderr both closed by their readers: samples to the end, exit 0, the file whole", async () => {
    const file = join(root, "agent-closed.jsonl");
    const args = [CLI, "sample", "--pid", String(process.pid), "--out", file, "--duration", "1", "--gc-at-end"];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    child.stderr.destroy();
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    expect(code).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ phase: "end", reason: "duration" });
  }, 60_000);
});
