// `history page`: history.html from the store: the series and their change points (detected afresh
// with the given settings; the stored ones are detect's), the alerts with their triage, the testbeds.
import { resolve } from "node:path";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { renderHistoryHtml } from "../report/history-html.js";
import { loadAssets } from "../report/write.js";
import { readConfirmations } from "../store/bisections.js";
import type { HistoryStore } from "../store/open-store.js";
import { readSeriesRows, readTestbeds, readTriage } from "../store/series-rows.js";
import { testbedText } from "../store/testbed.js";
import { type Detection, type DetectSettings, detectAll, seriesOf } from "../verdicts/history-series.js";

export async function historyDetection(
  store: HistoryStore,
  settings: DetectSettings,
  branch?: string,
): Promise<Detection> {
  const rows = await readSeriesRows(store, branch === undefined ? {} : { branch });
  return detectAll(seriesOf(rows), settings, await readTriage(store));
}

/** Writes the page to `out` (atomically); returns where, and what it shows. */
export async function writeHistoryPage(
  store: HistoryStore,
  settings: DetectSettings,
  out: string,
  branch?: string,
  now = new Date(),
): Promise<{ path: string; detection: Detection }> {
  const detection = await historyDetection(store, settings, branch);
  const testbeds = Object.fromEntries((await readTestbeds(store)).map((t) => [t.id, testbedText(t)]));
  const confirmations = (await readConfirmations(store, branch)).map((c) => ({
    stable: c.stableSha,
    commit: c.commitSha,
    outcome: c.outcome,
    pairs: c.pairs,
    cells: c.cells,
    culprits: c.culprits,
  }));
  const culprits = confirmations.flatMap((c) => c.culprits ?? []);
  const html = renderHistoryHtml(
    { detection, testbeds, confirmations, culprits, store: store.location, generatedAt: now.toISOString() },
    loadAssets(),
  );
  const path = resolve(out);
  writeFileAtomic(path, html);
  return { path, detection };
}
