// A run's History section, read from the history store when there is one (--history, else the
// repository's .catchup-bench/history.sqlite): this run's cells against the series of main recorded
// on the same testbed. No store, no section: a bench never creates one.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "../../refs/commits.js";
import type { HistoryContext, HistoryRow } from "../../report/history-section.js";
import type { Results } from "../../results/schema.js";
import type { CellVerdict } from "../../results/verdict-record.js";
import { openStore } from "../../store/open-store.js";
import { readChangePoints, readSeriesRows, readTestbeds } from "../../store/series-rows.js";
import { isPostgresUrl } from "../../store/store-url.js";
import { testbedFingerprint } from "../../store/testbed.js";
import { type Series, seriesOf } from "../../verdicts/history-series.js";
import { rolesOf } from "../../verdicts/metrics.js";

/** Points of main's recent range. */
const RECENT = 10;

/** The store a run reads: the flag's, else the repository's default, only when the file exists. */
export function existingStore(given: string | null, cwd: string, repo: string | null): string | null {
  if (given !== null) return isPostgresUrl(given) || existsSync(given) ? given : null;
  const root = repositoryRoot(repo ?? cwd);
  const path = root ? join(root, ".catchup-bench", "history.sqlite") : null;
  return path && existsSync(path) ? path : null;
}

function rowOf(
  v: CellVerdict,
  series: Series,
  base: string | null,
  changes: Awaited<ReturnType<typeof readChangePoints>>,
): HistoryRow {
  const points = series.points;
  const recent = points.slice(-RECENT).map((p) => p.ratio);
  const last = points.at(-1);
  const change = changes
    .filter((c) => c.cell === series.key.cell && c.metric === series.key.metric && c.testbedId === series.key.testbedId)
    .at(-1);
  return {
    cell: v.cell,
    metric: v.metric,
    ratio: v.median,
    baseToAnchor: points.find((p) => p.commit === base)?.ratio ?? null,
    latest: last ? { commit: last.commit, ratio: last.ratio } : null,
    recent: recent.length > 0 ? { low: Math.min(...recent), high: Math.max(...recent), points: recent.length } : null,
    lastChange: change ? { commit: change.commitSha, before: change.before, after: change.after } : null,
  };
}

/** The section's data, or null without a store or without a series for any of the run's cells. */
export async function historyContext(
  path: string | null,
  results: Results,
  branch = "main",
): Promise<HistoryContext | null> {
  if (path === null) return null;
  const store = await openStore(path, { create: false });
  try {
    const run = results.run;
    const fingerprint = testbedFingerprint({
      cpuModel: run.cpuModel,
      cores: run.cores,
      memoryBytes: run.memoryBytes ?? null,
      node: run.node,
      kernel: run.kernel ?? null,
    });
    const testbed = (await readTestbeds(store)).find((t) => t.fingerprint === fingerprint);
    if (!testbed) return null;
    const series = seriesOf((await readSeriesRows(store, { branch })).filter((r) => r.testbedId === testbed.id));
    const changes = await readChangePoints(store, { branch });
    const roles = rolesOf(results);
    const base = results.variants.find((v) => v.name === roles?.baseline)?.commit ?? null;
    const rows: HistoryRow[] = [];
    for (const v of results.verdicts ?? []) {
      const s = series.find((x) => x.key.cell === v.cell && x.key.metric === v.metric);
      if (s && "plannedPairs" in v) rows.push(rowOf(v as CellVerdict, s, base, changes));
    }
    if (rows.length === 0) return null;
    return { store: store.location, branch, anchor: (series[0] as Series).key.anchor, rows };
  } finally {
    await store.close();
  }
}
