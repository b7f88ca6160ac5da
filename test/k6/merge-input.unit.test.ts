// `report --merge` inputs: a directory (such as the runners' shared volume) gives its summary*.json
// files and skips k6's JSON-lines output beside them; a missing path or a directory without
// summaries is named in a one-line error.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunnerSummaries, summaryFiles } from "../../scripts/report/merge/inputs.js";

const dir = mkdtempSync(join(tmpdir(), "catchup-merge-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const summary = (scenario: string) =>
  JSON.stringify({ schema: "catchup-bench/k6-summary@1", scenario, sessions: 0, rows: [], figures: { errors: 0 } });

describe("summaryFiles", () => {
  it("takes a directory's summary*.json in order and skips other files", () => {
    writeFileSync(join(dir, "summary-runner-2.json"), summary("scaleout"));
    writeFileSync(join(dir, "summary-runner-1.json"), summary("scaleout"));
    writeFileSync(join(dir, "k6-runner-1.json"), '{"type":"Point"}\n{"type":"Point"}\n');
    expect(summaryFiles([dir])).toEqual([join(dir, "summary-runner-1.json"), join(dir, "summary-runner-2.json")]);
    expect(readRunnerSummaries([dir]).map((s) => s.summary.scenario)).toEqual(["scaleout", "scaleout"]);
  });

  it("names a missing path, an empty directory and a file that is not JSON", () => {
    expect(() => summaryFiles([join(dir, "nope")])).toThrow(/--merge .*nope: ENOENT/);
    const empty = mkdtempSync(join(dir, "empty-"));
    expect(() => summaryFiles([empty])).toThrow(/no summary\*\.json in this directory/);
    expect(() => readRunnerSummaries([join(dir, "k6-runner-1.json")])).toThrow(/not readable JSON/);
  });
});
