// The compiled CLI's flag handling and exit codes, end to end: --version, decimal-only integers,
// single-value flags given once, unknown flags named as typed, --token-file errors, exit 3 when a
// target fails, and exit 143 on SIGTERM with the finished rows kept.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, readJsonl, runCli, startCli, waitUntil } from "../hardening/support/harness.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-options-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = join(dir, "small.sqlite");

beforeAll(async () => {
  const r = await runCli(["fixture", "--projects", "3", "--events", "2", "--out", fixture], 60_000);
  expect(r.code, r.stderr).toBe(0);
});

function oneLine(r: { stderr: string; stdout: string }): string {
  expect(r.stdout).toBe("");
  const lines = r.stderr.trim().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0] as string;
}

describe("flags", () => {
  it("--version prints the package's version", async () => {
    const r = await runCli(["--version"]);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it.each([
    [
      ["fixture", "--projects", "0x10", "--out", join(dir, "x.sqlite")],
      '--projects must be an integer from 1 to 1000000 (got "0x10")',
    ],
    [
      ["fixture", "--events", "1.5", "--out", join(dir, "x.sqlite")],
      '--events must be an integer from 0 to 1000000 (got "1.5")',
    ],
    [["bench", "--trials", "1e4", "--out", join(dir, "b")], '--trials must be an integer from 1 to 1000 (got "1e4")'],
    [["fuzz", "--seconds", "0x10"], '--seconds must be an integer from 1 to 3600 (got "0x10")'],
    [
      ["clinic", "doctor", "--clients", "0b1", "--out", join(dir, "c")],
      '--clients must be an integer from 1 to 1000 (got "0b1")',
    ],
    [["report", dir, "--ceiling", "Infinity"], '--ceiling must be a number from 0.01 to 100 (got "Infinity")'],
  ])("refuses non-decimal numbers, fractions for integers, and numbers out of range: %j", async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(`catchup-bench: ${message}`);
  });

  it("says a single-value flag may be given once", async () => {
    const r = await runCli(["fixture", "--projects", "5", "--projects", "6", "--out", join(dir, "y.sqlite")]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe("catchup-bench: --projects may be given once (it was given 2 times)");
  });

  it("names an unknown flag as it was typed, once", async () => {
    const r = await runCli(["bench", "--script-bytez", "5", "--memoryTrials", "3"]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      "catchup-bench: Unknown arguments: script-bytez, memoryTrials (--script-bytez: did you mean --script-bytes?; --memoryTrials: did you mean --memory-trials?); see --help for the allowed flags and arguments",
    );
  });

  it("suggests the nearest flag of the command for a slip, and nothing for a name far from all", async () => {
    const slip = await runCli(["bench", "--trails", "3"]);
    expect(slip.code).toBe(2);
    expect(oneLine(slip)).toContain("Unknown argument: trails (--trails: did you mean --trials?)");
    const far = await runCli(["report", "x", "--wobble"]);
    expect(oneLine(far)).toBe(
      "catchup-bench: Unknown argument: wobble; see --help for the allowed flags and arguments",
    );
  });

  it("a missing --token-file is a usage error naming it", async () => {
    const missing = join(dir, "no-such-token");
    const r = await runCli(["bench", "--token-file", missing, "--out", join(dir, "t")]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      `catchup-bench: --token-file must be a readable file holding the token (${missing}: ENOENT)`,
    );
  });
});

describe("exit codes", () => {
  it("3 when a target fails to start (no result)", async () => {
    const r = await runCli(
      ["bench", "--target", "dies=exit 4 # {port}", "--fixture", fixture, "--no-memory", "--out", join(dir, "dies")],
      60_000,
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/target dies exited before it was ready/);
  });

  it("143 on SIGTERM, with the finished rows kept", async () => {
    const out = join(dir, "sigterm");
    const run = startCli([
      "bench",
      "--fixture",
      fixture,
      "--no-memory",
      "--cases",
      "snapshot",
      "--trials",
      "200",
      "--ack-delay-ms",
      "50",
      "--out",
      out,
    ]);
    const started = await waitUntil(
      () =>
        readJsonl(join(out, "results.jsonl")).filter((l) => l.kind === "latency").length >= 1 ||
        run.child.exitCode !== null,
      60_000,
    );
    expect(started, run.stderr()).toBe(true);
    expect(run.child.exitCode, run.stderr()).toBeNull();
    run.child.kill("SIGTERM");
    const exit = await run.exited;
    await run.closed;
    expect(exit.code, run.stderr()).toBe(143);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
      run: { stopReason?: string };
      latency: unknown[];
    };
    expect(results.run.stopReason).toBe("SIGTERM");
    expect(results.latency.length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
