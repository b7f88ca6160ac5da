// clinic doctor and heapprofiler against the real bundled server on a small generated fixture: each
// leaves a non-empty HTML report at <run>/clinic/<tool>.html and no process behind. Slow (clinic
// analyses after the run), so the drive lasts 2 s.
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveClinicBin } from "../../scripts/clinic/resolve.js";
import { runClinic } from "../../scripts/clinic/run.js";
import { type TempFixtures, tempFixtures } from "../support/server-fixtures.js";

const BIN = fileURLToPath(new URL("../../bin/catchup-bench.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let fixtures: TempFixtures | undefined;
let dir: string;
let fixture: string;

beforeAll(() => {
  fixtures = tempFixtures("catchup-clinic-test");
  dir = fixtures.dir;
  fixture = fixtures.make("fixture", { projects: 100, scriptBytes: 1024, events: 1000, seed: 3 });
});
afterAll(() => {
  fixtures?.cleanup();
});

/** Processes whose command line mentions this test's directory (its server or clinic). */
function leftovers(): string[] {
  const ps = spawnSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return ps.stdout.split("\n").filter((l) => l.includes(dir) && !l.includes("ps -eo"));
}

describe("clinic", () => {
  it("doctor through the CLI leaves an HTML report and prints its path", () => {
    const out = join(dir, "run-doctor");
    const r = spawnSync(
      process.execPath,
      [BIN, "clinic", "doctor", "--case", "resume-many", "--fixture", fixture, "--duration-s", "2", "--out", out],
      { encoding: "utf8", timeout: 150_000 },
    );
    expect(r.stderr).toMatch(/sessions ok/);
    expect(r.status).toBe(0);
    const html = join(out, "clinic", "doctor.html");
    expect(r.stdout.trim()).toBe(html);
    expect(statSync(html).size).toBeGreaterThan(50_000);
    expect(readFileSync(html, "utf8")).toMatch(/<html[\s\S]*clinic/i);
    expect(leftovers()).toEqual([]);
  }, 160_000);

  it("heapprofiler leaves a non-empty HTML report (its profile written before the server stops)", async () => {
    const out = join(dir, "run-heap");
    const outcome = await runClinic({
      clinicBin: resolveClinicBin([ROOT]),
      tool: "heapprofiler",
      case: "snapshot",
      clients: 2,
      scriptBytes: 1024,
      variant: "batched",
      durationS: 2,
      ackDelayMs: 20,
      out,
      fixture,
    });
    expect(outcome.okSessions).toBeGreaterThan(0);
    expect(outcome.okSessions).toBe(outcome.sessions);
    expect(outcome.htmlPath).toBe(join(out, "clinic", "heapprofiler.html"));
    expect(statSync(outcome.htmlPath).size).toBeGreaterThan(50_000);
    expect(leftovers()).toEqual([]);
  }, 160_000);
});
