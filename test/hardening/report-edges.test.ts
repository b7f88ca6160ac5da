// Edges of reading and writing a run that a user meets: `report RUN | head -1` (the reader closes
// the pipe: exit quietly), a run folder holding only results.jsonl (a double Ctrl-C: rendered from
// it), an unwritable default reports/ (one line, exit 2), and a target's raw bytes (escape codes,
// NULs) that must not reach the terminal.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import { RESULTS_SCHEMA } from "../../scripts/results/schema.js";
import { syntheticResults } from "../report/synthetic-run.js";
import { CLI, rowsOf, runCli, startCli, waitUntil } from "./support/harness.js";

let root: string;
let run: string;
let fixture: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "catchup-edges-"));
  run = join(root, "run");
  syntheticResults(run, { trials: 2 });
  fixture = generateFixture({
    projects: 20,
    scriptBytesMin: 256,
    scriptBytesMax: 256,
    scriptsPerProject: 1,
    events: 20,
    seed: 3,
    out: join(root, "f.sqlite"),
  }).path;
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/**
 * stderr carries only the written paths and the closing summary line (stdout is the Markdown
 * alone): no error line, no stack trace.
 */
function onlyPathLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => /Error|^\s+at |catchup-bench: /.test(l));
}

describe("report to a pipe closed by its reader", () => {
  it("exits 0 without a stack trace (EPIPE is the reader's choice, not an error)", async () => {
    const child = spawn(process.execPath, [CLI, "report", run], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // the reader goes away before anything is written
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    expect(onlyPathLines(stderr)).toEqual([]);
    expect(code).toBe(0);
  });
});

describe("a run folder holding only results.jsonl", () => {
  it("is rendered from it, says the run did not finish, keeps the rows (a torn last line ignored), frees the dead run's disk reserve", async () => {
    const results = JSON.parse(readFileSync(join(run, "results.json"), "utf8"));
    const dir = join(root, "jsonl-only");
    mkdirSync(dir);
    const lines = [
      { kind: "run", schema: RESULTS_SCHEMA, run: results.run, variants: results.variants },
      ...results.latency.map((row: unknown) => ({ kind: "latency", row })),
      ...results.memory.map((row: unknown) => ({ kind: "memory", row })),
    ].map((l) => JSON.stringify(l));
    writeFileSync(join(dir, "results.jsonl"), `${lines.join("\n")}\n{"kind":"latency","row":{"ca`);
    // The page a SIGKILLed run kept in reserve: its writer is gone, so report frees it.
    writeFileSync(join(dir, ".disk-reserve"), Buffer.alloc(4096));
    const r = await runCli(["report", dir], 30_000);
    expect(r.code, r.stderr).toBe(0);
    expect(onlyPathLines(r.stderr)).toEqual([]);
    expect(r.stdout).toMatch(
      /## Stopped early\n\nThe run stopped before its plan finished: results\.json was never written/,
    );
    expect(r.stdout).toMatch(/\| snapshot \|/);
    expect(readdirSync(dir).sort()).toEqual(["report.html", "report.md", "results.jsonl"]);
  });
});

describe("report on a run still in progress", () => {
  it("says in progress (its bench is alive), exits 3 and writes nothing into the folder", async () => {
    const out = join(root, "live");
    const bench = startCli([
      ...["bench", "--no-memory", "--no-aa", "--cases", "snapshot", "--trials", "20", "--ack-delay-ms", "300"],
      ...["--fixture", fixture, "--out", out],
    ]);
    try {
      expect(await waitUntil(() => rowsOf(join(out, "results.jsonl")).length >= 1, 90_000), bench.stderr()).toBe(true);
      const before = readdirSync(out).sort();
      const r = await runCli(["report", out]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`live is in progress \\(bench pid ${bench.child.pid} is still writing`));
      expect(r.stderr).not.toMatch(/stopped hard/);
      expect(r.stdout).toBe("");
      expect(readdirSync(out).sort()).toEqual(before);
    } finally {
      bench.child.kill("SIGINT");
      await bench.exited;
    }
  }, 150_000);
});

describe("an unwritable default reports/", () => {
  it("is one line naming it, exit 2, before any fixture or target work", async () => {
    // A working directory whose reports/ is a regular file (root cannot be denied by mode bits).
    const work = join(root, "work");
    mkdirSync(work);
    writeFileSync(join(work, "reports"), "");
    const child = spawn(process.execPath, [CLI, "bench", "--no-memory", "--cases", "snapshot", "--fixture", fixture], {
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    expect(code, stderr).toBe(2);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/--out must be a writable directory \(.*work\/reports: ENOTDIR/);
    expect(readFileSync(join(work, "reports"), "utf8")).toBe("");
    expect(readdirSync(work)).toEqual(["reports"]);
  }, 60_000);
});

describe("text from a target reaching the terminal", () => {
  it("is escaped: no escape sequence or NUL of a dying target's stderr reaches ours", async () => {
    const evil = join(root, "evil.mjs");
    writeFileSync(evil, 'process.stderr.write("boom \\u001b[2J\\u0000 cleared\\r\\n"); process.exit(3);\n');
    const r = await runCli(
      [
        "bench",
        "--no-memory",
        "--cases",
        "snapshot",
        "--trials",
        "1",
        "--fixture",
        fixture,
        "--start-timeout-ms",
        "20000",
        "--out",
        join(root, "evil-run"),
        "--target",
        `evil=node ${evil} --port {port}`,
      ],
      60_000,
      { TMPDIR: root },
    );
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/target evil exited before it was ready \(exit code 3\)/);
    expect(r.stderr).toContain("boom \\x1b[2J\\x00 cleared");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(r.stderr).not.toMatch(/[\u0000\u001b]/);
    const md = readFileSync(join(root, "evil-run", "report.md"), "utf8");
    expect(md).toMatch(/## Stopped early/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(md).not.toMatch(/[\u0000\u001b]/);
  }, 90_000);
});

describe("a run folder whose name holds a newline", () => {
  it("is printed escaped on one line, never raw", async () => {
    const out = join(root, "two\nlines");
    const r = await runCli(
      ["bench", "--no-memory", "--cases", "snapshot", "--trials", "1", "--no-aa", "--fixture", fixture, "--out", out],
      60_000,
      { TMPDIR: root },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, "results.json"))).toBe(true);
    expect(r.stderr).toContain(`Results: ${join(root, "two")}\\nlines/results.json\n`);
  }, 90_000);
});
