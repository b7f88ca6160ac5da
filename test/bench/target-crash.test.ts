// A target that dies BETWEEN trials is a finding, not something to restart silently: SIGKILL of the
// idle candidate server while the baseline runs its trial ends in a recorded crash (which variant,
// when, its signal), a "Target crashes" section in report.md and report.html, and exit 3.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Results } from "../../scripts/results/schema.js";
import { descendants } from "../../scripts/sampler/procfs.js";
import { EXIT } from "../../scripts/util/exit-codes.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";
import { cmdline, startBench } from "./bench-child.js";

const SERVER = fileURLToPath(new URL("../../dist/server-under-test/main.js", import.meta.url));
const FAULTY = fileURLToPath(new URL("../hardening/targets/faulty.mjs", import.meta.url));

let fixtures: TempFixtures | undefined;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("bench-crash");
  fixture = fixtures.make("f", { projects: 40, scriptBytes: 256, events: 60, seed: 1 });
});

afterAll(() => {
  fixtures?.cleanup();
});

describe("a target that dies between trials", () => {
  it("is recorded in results.json and the reports, and the run exits 3", async () => {
    const out = join(fixtures?.dir as string, "idle-kill");
    // Plan (one round; variants legacy, batched and the A/A copy of legacy, in that order per case):
    // snapshot legacy, snapshot batched, snapshot A/A, resume-many legacy, resume-many batched, ...
    // Progress lines are printed as a trial ends, so on "[2/N] snapshot batched" batched has just
    // finished its trial and sits idle through the next two (each ACK held 1 s): it is killed then.
    const bench = startBench([
      "--variants",
      "legacy,batched",
      "--cases",
      "snapshot,resume-many",
      "--trials",
      "1",
      "--ack-delay-ms",
      "1000",
      "--fixture",
      fixture,
      "--no-memory",
      "--out",
      out,
    ]);
    await bench.waitFor(/\[2\/\d+\] snapshot batched/, 90_000);
    const candidate = descendants(bench.pid).find((p) =>
      /server-under-test\/main\.js.*--delivery batched/.test(cmdline(p)),
    );
    expect(candidate, "the idle candidate server").toBeDefined();
    process.kill(candidate as number, "SIGKILL");
    const { code } = await bench.exit(90_000);
    expect(code, bench.stderr()).toBe(EXIT.noResult);

    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
    expect(results.targetCrashes).toHaveLength(1);
    const crash = results.targetCrashes?.[0];
    expect(crash).toMatchObject({ variant: "batched", matrix: "latency", signal: "SIGKILL", code: null });
    expect(Number.isNaN(Date.parse(crash?.at ?? ""))).toBe(false);
    const next = results.latency.find((r) => r.case === "resume-many" && r.variant === "batched");
    if (crash?.during.startsWith("during ")) {
      // Legitimate only on a machine so slow that the two trials in between ended before the kill:
      // batched's next trial had started, and it is that trial's failure.
      expect(crash.during).toBe("during resume-many batched trial 1");
      expect(next?.ok).toBe(false);
    } else {
      expect(bench.stderr()).toMatch(/target batched died \(signal SIGKILL\) while idle between trials/);
      expect(crash?.during).toMatch(/idle between trials \(seen before resume-many batched trial 1\)/);
      expect(crash?.affects.join(" ")).toMatch(/resume-many batched trial 1 .*restarted server/);
      // The restarted server ran it.
      expect(next?.ok).toBe(true);
    }
    // results.jsonl carries it too (a run stopped hard still knows).
    expect(readFileSync(join(out, "results.jsonl"), "utf8")).toMatch(/"kind":"crash"/);

    const md = readFileSync(join(out, "report.md"), "utf8");
    expect(md).toMatch(/## Target crashes/);
    expect(md).toMatch(/latency target batched died \(signal SIGKILL\)/);
    expect(readFileSync(join(out, "report.html"), "utf8")).toMatch(/<h2>Target crashes<\/h2>/);
  }, 180_000);

  it("in a memory cell is recorded too, and what was sampled before it died is in report.md", async () => {
    const dir = fixtures?.dir as string;
    const out = join(dir, "memory-kill");
    // The faulty target SIGKILLs itself on its second subscription: the second client of the cell.
    const bench = startBench([
      "--no-latency",
      "--quick",
      "--no-aa",
      "--clients",
      "2",
      "--script-bytes",
      "1024",
      "--fixtures-dir",
      join(dir, "fx"),
      "--out",
      out,
      "--target",
      `good=node ${SERVER} --db {db} --port {port}`,
      "--target",
      `bad=node ${FAULTY} --fault sigkill --port {port}`,
    ]);
    const { code } = await bench.exit(150_000);
    expect(code, bench.stderr()).toBe(EXIT.noResult);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as Results;
    expect(results.targetCrashes?.map((c) => [c.variant, c.matrix, c.signal])).toEqual([
      ["bad", "memory", "SIGKILL"],
      ["bad", "memory", "SIGKILL"],
    ]);
    expect(results.targetCrashes?.[0]?.during).toMatch(/during memory-s1024-c2-memory-bad-t1/);
    const md = readFileSync(join(out, "report.md"), "utf8");
    expect(md).toMatch(/memory target bad died \(signal SIGKILL\)/);
    expect(md).toMatch(
      /## Measured before the failure[\s\S]*\| memory 1024 B x 2 memory bad trial 1 \| \d+\.\d \| \d+\.\d \|/,
    );
  }, 180_000);
});
