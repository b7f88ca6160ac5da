// The machine's load in the reports (pure): a "disturbed rounds" column in the per-cell verdict
// tables and one summary line under their heading (rounds disturbed per matrix, --wait-quiet's pauses).

import type { RoundLoad } from "../results/load-record.js";
import type { Results } from "../results/schema.js";
import { median } from "../util/stats.js";
import { type CellLoad, cellLoads, roundLoads, thresholdOf } from "../verdicts/disturbance.js";

export interface LoadModel {
  thresholdCores: number;
  waitQuietSeconds: number | null;
  cells: CellLoad[];
  rounds: RoundLoad[];
}

/** The load model of a run, or null when its rows carry no load readings (older results). */
export function loadModel(results: Results): LoadModel | null {
  const threshold = thresholdOf(results);
  const cells = cellLoads(results, threshold);
  if (cells.length === 0) return null;
  return {
    thresholdCores: threshold,
    waitQuietSeconds: results.load?.waitQuietSeconds ?? null,
    cells,
    // The recorded rounds carry --wait-quiet's pauses; without them, the same figures from the rows.
    rounds: results.load?.rounds ?? roundLoads(results, threshold),
  };
}

/** The "disturbed rounds" column (d / n) of a verdict table over one matrix's cells, or null without load readings. */
export function disturbedColumn(
  load: LoadModel | null,
  matrix: "latency" | "memory",
): { header: string; cell: (cell: string) => string } | null {
  if (!load) return null;
  return {
    header: "disturbed rounds",
    cell: (cell) => {
      const c = load.cells.find((l) => l.matrix === matrix && l.cell === cell);
      return c ? `${c.disturbed} / ${c.rounds.length}` : "n/a";
    },
  };
}

/** One line: rounds disturbed per matrix, with the median and largest foreign load, and the waits. */
export function loadLine(load: LoadModel | null): string | null {
  if (!load || load.rounds.length === 0) return null;
  const parts = (["latency", "memory"] as const).flatMap((matrix) => {
    const rounds = load.rounds.filter((r) => r.matrix === matrix);
    if (rounds.length === 0) return [];
    const foreign = rounds.map((r) => r.otherCores + r.stealCores);
    const cells = load.cells.filter((c) => c.matrix === matrix);
    const cellRounds = cells.reduce((s, c) => s + c.rounds.length, 0);
    const cellDisturbed = cells.reduce((s, c) => s + c.disturbed, 0);
    return [
      `${matrix}: ${rounds.filter((r) => r.disturbed).length} of ${rounds.length} rounds disturbed (${cellDisturbed} of ${cellRounds} cell rounds; others' CPU + steal per round median ${median(foreign).toFixed(2)}, max ${Math.max(...foreign).toFixed(2)} cores)`,
    ];
  });
  const waited = load.rounds.filter((r) => r.waitedMs !== undefined);
  const wait =
    load.waitQuietSeconds === null
      ? ""
      : ` --wait-quiet ${load.waitQuietSeconds} s: waited ${(waited.reduce((s, r) => s + (r.waitedMs ?? 0), 0) / 1000).toFixed(1)} s in total before ${waited.length} rounds; ${waited.filter((r) => r.settled === false).length} started still busy.`;
  return `Machine load, read from /proc between trials (a cell's round is disturbed when other processes' CPU plus steal, averaged over its trials, reach ${load.thresholdCores} cores): ${parts.join("; ")}.${wait}`;
}
