// An existing run re-rendered is judged again by today's rules: a results.json written before the
// per-metric units (its probeMaxMs verdicts judged against the MiB floor) renders the corrected verdicts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeReports } from "../../scripts/report/write.js";
import { syntheticResults } from "./synthetic-run.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("re-rendering an old run", () => {
  it("judges max probe latency in ms: a doubling of 6 ms is higher, not below a MiB floor", async () => {
    const dir = mkdtempSync(join(tmpdir(), "catchup-rejudge-"));
    dirs.push(dir);
    const r = syntheticResults(dir, { trials: 8, memoryTrials: 8 });
    // The candidate's max probe latency is twice the baseline's, trial by trial (about 6 -> 12 ms).
    const key = (m: (typeof r.memory)[number]) => `${m.scriptBytes}/${m.clients}/${m.mode}/${m.trial}`;
    const baseline = new Map(r.memory.filter((m) => m.variant === "legacy").map((m) => [key(m), m.probeMaxMs]));
    for (const m of r.memory) if (m.variant === "batched") m.probeMaxMs = 2 * (baseline.get(key(m)) as number);
    // As results.json kept it before: no verdicts, or the old wrong ones; the report judges anew either way.
    r.verdicts = undefined;
    writeFileSync(join(dir, "results.json"), JSON.stringify(r));
    const { markdown } = await writeReports(dir);
    const table = markdown.slice(markdown.indexOf("### probeMaxMs"));
    const rows = table.split("\n").filter((l) => / × \d, (resume|snapshot) \|/.test(l));
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row).toMatch(/\| DIFFERENT: higher 2\.000, interval above 1\.0 \|$/);
      expect(row).not.toContain("MiB");
    }
  });
});
