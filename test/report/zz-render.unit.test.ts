import { writeFileSync } from "node:fs";
import { it } from "vitest";
import { writeReports } from "../../scripts/report/write.js";
import { syntheticResults } from "./synthetic-run.js";
it("renders", async () => {
  const d = process.env.SYN_DIR as string;
  syntheticResults(d, { trials: 8, memoryTrials: 3, aa: true, withFailure: true, guard: { ceiling: 1.03, metrics: ["completionMs", "peakHeapBytes"] } });
  const r = await writeReports(d);
  writeFileSync("/tmp/syn-report.md", r.markdown);
});
