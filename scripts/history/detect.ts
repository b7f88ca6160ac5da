// `history detect`: recomputes every change point of the store's series (those of one branch, with
// --branch) and lists one alert per suspect commit, with its triage. Change points are replaced on
// every run; triage is kept.
import type { HistoryStore } from "../store/open-store.js";
import {
  readSeriesRows,
  readTestbeds,
  readTriage,
  replaceChangePoints,
  type StoredChangePoint,
} from "../store/series-rows.js";
import type { SeriesChange, SeriesKey } from "../verdicts/change-point-verdict.js";
import { type Detection, type DetectSettings, detectAll, seriesOf } from "../verdicts/history-series.js";

function stored(key: SeriesKey, c: SeriesChange): StoredChangePoint {
  return {
    matrix: key.matrix,
    cell: key.cell,
    metric: key.metric,
    testbedId: key.testbedId,
    branch: key.branch,
    anchorSha: key.anchor,
    commitSha: c.commit,
    stableSha: c.stableCommit,
    pValue: c.pValue,
    magnitude: c.magnitude,
    before: c.before,
    after: c.after,
    direction: c.magnitude > 0 ? "regression" : "improvement",
  };
}

/** Reads the store, detects, and replaces the stored change points of the branches it looked at. */
export async function detectStore(
  store: HistoryStore,
  settings: DetectSettings,
  branch?: string,
): Promise<Detection & { testbeds: Awaited<ReturnType<typeof readTestbeds>> }> {
  const rows = await readSeriesRows(store, branch === undefined ? {} : { branch });
  const detection = detectAll(seriesOf(rows), settings, await readTriage(store));
  const branches = branch === undefined ? [...new Set(rows.map((r) => r.branch))] : [branch];
  await replaceChangePoints(
    store,
    branches,
    detection.series.flatMap((d) => d.changes.map((c) => stored(d.series.key, c))),
  );
  return { ...detection, testbeds: await readTestbeds(store) };
}
