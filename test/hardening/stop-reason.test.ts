// A run that stops early keeps WHY with its results: a target that never became ready (fatal) and
// --fail-fast each leave results.json with run.stopReason, and `report` later shows it under
// "Stopped early" (not a bare "interrupted").
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { FAULTY, NEVER_READY, runCli, SERVER_MAIN } from "./support/harness.js";

let fixtures: TempFixtures;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-stop");
  fixture = fixtures.make("f", { projects: 20, scriptBytes: 256, events: 30 });
});

afterAll(() => fixtures?.cleanup());

const bench = (out: string, extra: string[], startTimeoutMs = 15_000) => [
  "bench",
  "--no-memory",
  "--cases",
  "snapshot",
  "--trials",
  "2",
  "--fixture",
  fixture,
  "--ack-delay-ms",
  "0",
  "--trial-timeout-ms",
  "5000",
  "--start-timeout-ms",
  String(startTimeoutMs),
  "--out",
  out,
  "--target",
  `good=node ${SERVER_MAIN} --db {db} --port {port}`,
  ...extra,
];

const results = (out: string) => JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;

describe("the reason a run stopped is saved and reported", () => {
  it("a target that never became ready: stopReason in results.json, shown by `report`", async () => {
    const out = join(fixtures.dir, "never-ready");
    // 5 s: the good target starts first, so only the never-ready one waits this out.
    const r = await runCli(bench(out, ["--target", `bad=node ${NEVER_READY} --port {port}`], 5000), 60_000, {
      TMPDIR: fixtures.dir,
    });
    expect(r.code, r.stderr).not.toBe(0);
    const run = results(out).run;
    expect(run.interrupted).toBe(true);
    expect(run.stopReason).toMatch(/target bad never became ready within 5000 ms/);
    const report = await runCli(["report", out], 30_000);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(
      /## Stopped early\n\nThe run stopped before its plan finished: target bad never became ready/,
    );
  });

  it("--fail-fast: the failed trial is the reason", async () => {
    const out = join(fixtures.dir, "fail-fast");
    const r = await runCli(
      bench(out, ["--target", `bad=node ${FAULTY} --fault defect --port {port}`, "--fail-fast"]),
      60_000,
      { TMPDIR: fixtures.dir },
    );
    expect(r.code, r.stderr).not.toBe(0);
    expect(results(out).run.stopReason).toMatch(/^--fail-fast: snapshot bad trial 1 failed: .*defect/i);
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/## Stopped early\n\nThe run stopped .*--fail-fast/);
  });
});
