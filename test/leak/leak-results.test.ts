// Leak rows on disk: kept in results.jsonl as they are added (a crashed harness loses none) and in
// results.json at the end; rebuilding the results from results.jsonl brings them back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ResultsFile, resultsFromJsonl } from "../../scripts/results/journal.js";
import { leakRow } from "../../scripts/verdicts/leak-verdict.js";
import { testRunInfo } from "../support/run-info.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-leak-results-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const points = Array.from({ length: 15 }, (_, i) => ({
  cycle: i + 1,
  postGcHeapBytes: 1_000_000 + 4096 * i,
  rssBytes: 50_000_000,
  fds: 20,
}));

describe("leak rows in the results files", () => {
  it("round-trips through results.jsonl and results.json", () => {
    const run = testRunInfo();
    const file = new ResultsFile(join(dir, "run"), run, [
      { name: "A", kind: "bundled", command: "a", role: "baseline" },
    ]);
    const row = leakRow("A", 1, points, 3, 1024);
    file.addLeak(row);
    const fromJsonl = resultsFromJsonl(file.jsonlPath);
    expect(fromJsonl.leak).toEqual([row]);
    file.finish("2026-11-30T00:01:00.000Z", null);
    const json = JSON.parse(readFileSync(file.jsonPath, "utf8"));
    expect(json.leak).toEqual([row]);
    expect(json.leak[0].verdict).toBe("leak");
  });
});
