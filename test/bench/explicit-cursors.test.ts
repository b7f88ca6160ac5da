// --cursor and --latest replace the fixture's sequences, for a server seeded through its own API:
// with --latest set to the fixture's cursor, "resume, no new events" resumes before all 1,000 update
// events, so the legacy server streams the replay (the chunks of resume-many), not a bare marker.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateFixture } from "../../fixtures/generate.js";
import type { Results } from "../../scripts/results/schema.js";
import { startBench } from "./bench-child.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-cursors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function chunksByCase(extra: string[], out: string): Promise<{ results: Results; chunks: Map<string, number> }> {
  const child = startBench([
    "--fixture",
    join(dir, "f.sqlite"),
    "--no-memory",
    "--no-aa",
    "--variants",
    "legacy",
    "--cases",
    "resume-none,resume-many",
    "--trials",
    "1",
    "--ack-delay-ms",
    "0",
    "--out",
    join(dir, out),
    ...extra,
  ]);
  const { code } = await child.exit(180_000);
  expect(code, child.stderr()).toBe(0);
  const results = JSON.parse(readFileSync(join(dir, out, "results.json"), "utf8")) as Results;
  return { results, chunks: new Map(results.latency.map((r) => [r.case, r.chunks])) };
}

describe("explicit resume cursors", () => {
  it("derive every case's afterSequence from --cursor/--latest instead of the fixture", async () => {
    const { meta } = generateFixture({
      out: join(dir, "f.sqlite"),
      projects: 600,
      scriptBytesMin: 256,
      scriptBytesMax: 256,
      scriptsPerProject: 1,
      events: 1000,
      seed: 1,
    });
    const plain = await chunksByCase([], "plain");
    expect(plain.chunks.get("resume-none")).toBe(2);
    const many = plain.chunks.get("resume-many") as number;
    expect(many).toBeGreaterThan(2);

    const moved = await chunksByCase(["--latest", String(meta.cursorSequence)], "moved");
    expect(moved.chunks.get("resume-none")).toBe(many);
    expect((moved.results.run.config as { sequences?: unknown }).sequences).toEqual({
      cursor: null,
      latest: meta.cursorSequence,
    });
  }, 400_000);

  it("refuses a cursor past the latest sequence", async () => {
    const child = startBench(["--cursor", "10", "--latest", "5", "--out", join(dir, "never")]);
    const { code } = await child.exit(30_000);
    expect(code).toBe(2);
    expect(child.stderr().trim()).toBe("catchup-bench: --cursor must not exceed --latest (got --cursor 10 --latest 5)");
  });
});
