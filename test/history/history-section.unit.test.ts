// report.md's History section: a run against the series of main recorded in the store (same
// testbed): the baseline's place in the series, the candidate's implied place, main's latest point
// and its last change point. No store, or no series for the run's cells: no section.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyContext } from "../../scripts/bench/run/history-context.js";
import { detectStore } from "../../scripts/history/detect.js";
import { runRecord } from "../../scripts/history/run-record.js";
import { renderReports } from "../../scripts/report/write.js";
import { openStore } from "../../scripts/store/open-store.js";
import { addRun } from "../../scripts/store/runs.js";
import { verdictsOf } from "../../scripts/verdicts/cells.js";
import { refRunDir } from "./history-runs.js";

let dir: string;
const sha = (n: number) => n.toString(16).padStart(2, "0").repeat(20);
const assets = { uplotJs: "", uplotCss: "" };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "history-section-"));
  const store = await openStore(join(dir, "h.sqlite"));
  // main: commits 1..4 recorded against anchor 0.
  for (let n = 1; n <= 4; n++) {
    const results = refRunDir(join(dir, `rec-${n}`), n, sha(n), sha(0));
    await addRun(
      store,
      runRecord(results, {
        kind: "record",
        branch: "main",
        source: null,
        commitFacts: (s) => ({
          sha: s,
          parent: null,
          time: null,
          ord: Number.parseInt(s.slice(0, 2), 16),
          subject: null,
        }),
      }),
    );
  }
  await detectStore(store, { pValue: 0.01, window: 40, permutations: 99 });
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("report.md's History section", () => {
  it("puts a pull request's run (base = a recorded commit of main) against main's series", async () => {
    const pr = refRunDir(join(dir, "pr"), 9, sha(99), sha(3));
    // As bench has judged them by the time it renders.
    pr.verdicts = verdictsOf(pr, null);
    const history = await historyContext(join(dir, "h.sqlite"), pr);
    expect(history?.anchor).toBe(sha(0));
    const many = history?.rows.find((r) => r.cell === "resume-many" && r.metric === "completionMs");
    expect(many?.baseToAnchor).toBeGreaterThan(1);
    expect(many?.latest?.commit).toBe(sha(4));
    expect(many?.recent?.points).toBe(4);
    const { markdown } = renderReports(pr, () => null, assets, { history });
    const section = markdown.slice(markdown.indexOf("## History"));
    expect(section).toMatch(/This run against the series on main in .*h\.sqlite, ratios to its anchor 000000000000/);
    expect(section).toMatch(
      /\| resume-many \| completionMs \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \(040404040404\) \| [\d.]+–[\d.]+ \(4\) \| none \|/,
    );
  });

  it("has no section without a store, or when the run's testbed has no series", async () => {
    const pr = refRunDir(join(dir, "pr2"), 10, sha(98), sha(3));
    expect(await historyContext(null, pr)).toBeNull();
    pr.run.cpuModel = "another machine";
    expect(await historyContext(join(dir, "h.sqlite"), pr)).toBeNull();
    expect(renderReports(pr, () => null, assets, { history: null }).markdown).not.toMatch(/## History/);
  });
});
