// Load awareness (pure): from the machine's CPU counters read before and after each trial, how much
// CPU other processes (and the hypervisor, as steal) took while the trial ran, and whether that
// disturbed it. A round of a cell is disturbed when the others' CPU plus steal, averaged over that
// cell's trials of the round, reaches the threshold (in cores). No /proc here: the readings come in
// as numbers (scripts/sampler/machine-load.ts reads them).

import type { LoadFigures, LoadSnapshot, QuietWait, RoundLoad, TrialLoad } from "../results/load-record.js";
import type { LatencyRow, MemoryRow, Results } from "../results/schema.js";

/** Default threshold: others' CPU + steal averaged over a window, in cores (a quarter of one core). */
export const DEFAULT_DISTURBED_CORES = 0.25;
/** A "noise" cell with at least this share of its rounds disturbed gets "machine busy" as its reason. */
export const BUSY_SHARE = 0.25;

/** The window between two readings. */
export function trialLoad(before: LoadSnapshot, after: LoadSnapshot): TrialLoad {
  const d = (k: "busyTicks" | "stealTicks" | "totalTicks" | "ownTicks") => Math.max(0, after[k] - before[k]);
  return {
    ms: Math.max(0, after.t - before.t),
    cores: after.cores,
    busyTicks: d("busyTicks"),
    stealTicks: d("stealTicks"),
    totalTicks: d("totalTicks"),
    ownTicks: d("ownTicks"),
    loadAvg1: after.loadAvg1,
  };
}

/** Several windows as one (their ticks summed): a cell's trials of a round, or a whole round. */
export function sumLoads(loads: readonly TrialLoad[]): TrialLoad | null {
  if (loads.length === 0) return null;
  const sum = (k: "ms" | "busyTicks" | "stealTicks" | "totalTicks" | "ownTicks") => loads.reduce((s, l) => s + l[k], 0);
  return {
    ms: sum("ms"),
    cores: Math.max(...loads.map((l) => l.cores)),
    busyTicks: sum("busyTicks"),
    stealTicks: sum("stealTicks"),
    totalTicks: sum("totalTicks"),
    ownTicks: sum("ownTicks"),
    loadAvg1: Math.max(...loads.map((l) => l.loadAvg1)),
  };
}

/**
 * Others' CPU and steal, in cores, averaged over the window: (busy − ours) / capacity × cores. A
 * window with no ticks (shorter than one clock tick) has nothing to say: zero.
 */
export function loadFigures(l: TrialLoad): LoadFigures {
  if (!(l.totalTicks > 0)) return { otherCores: 0, stealCores: 0 };
  const share = (ticks: number) => (Math.max(0, ticks) / l.totalTicks) * l.cores;
  return { otherCores: share(l.busyTicks - l.ownTicks), stealCores: share(l.stealTicks) };
}

/** True when others' CPU plus steal reached the threshold. */
export function isDisturbed(f: LoadFigures, thresholdCores: number): boolean {
  return f.otherCores + f.stealCores >= thresholdCores;
}

/** One round of one cell: its trials' windows summed (every variant's, A/A included), judged. */
export interface CellRoundLoad extends LoadFigures {
  round: number;
  ms: number;
  loadAvg1: number;
  disturbed: boolean;
}

/** A cell's rounds and how many were disturbed. */
export interface CellLoad {
  matrix: "latency" | "memory";
  cell: string;
  rounds: CellRoundLoad[];
  disturbed: number;
  /** The most others' CPU + steal any of its rounds saw (cores). */
  maxForeignCores: number;
}

type Row = { trial: number; load?: TrialLoad | null };

function roundsOf<R extends Row>(rows: readonly R[], threshold: number): CellRoundLoad[] {
  const byRound = new Map<number, TrialLoad[]>();
  for (const r of rows) {
    if (!r.load) continue;
    byRound.set(r.trial, [...(byRound.get(r.trial) ?? []), r.load]);
  }
  return [...byRound]
    .sort((a, b) => a[0] - b[0])
    .map(([round, loads]) => {
      const sum = sumLoads(loads) as TrialLoad;
      const f = loadFigures(sum);
      return { round, ms: sum.ms, loadAvg1: sum.loadAvg1, ...f, disturbed: isDisturbed(f, threshold) };
    });
}

function cellLoad(
  matrix: "latency" | "memory",
  cell: string,
  rows: readonly Row[],
  threshold: number,
): CellLoad | null {
  const rounds = roundsOf(rows, threshold);
  if (rounds.length === 0) return null;
  return {
    matrix,
    cell,
    rounds,
    disturbed: rounds.filter((r) => r.disturbed).length,
    maxForeignCores: Math.max(...rounds.map((r) => r.otherCores + r.stealCores)),
  };
}

/** The memory cell id of a row, as verdicts name it: "8192x4/memory". */
const memoryCell = (r: Pick<MemoryRow, "scriptBytes" | "clients" | "mode">) =>
  `${r.scriptBytes}x${r.clients}/${r.mode}`;

/** Every cell's rounds and disturbed count, from the rows (the A/A copy's rows count in their round). */
export function cellLoads(
  rows: {
    latency: readonly LatencyRow[];
    memory: readonly MemoryRow[];
    aa?: { latency: LatencyRow[]; memory: MemoryRow[] };
  },
  thresholdCores: number,
): CellLoad[] {
  const latency = [...rows.latency, ...(rows.aa?.latency ?? [])];
  const memory = [...rows.memory, ...(rows.aa?.memory ?? [])];
  const out: CellLoad[] = [];
  for (const c of [...new Set(latency.map((r) => r.case as string))]) {
    const l = cellLoad(
      "latency",
      c,
      latency.filter((r) => r.case === c),
      thresholdCores,
    );
    if (l) out.push(l);
  }
  for (const c of [...new Set(memory.map(memoryCell))]) {
    const l = cellLoad(
      "memory",
      c,
      memory.filter((r) => memoryCell(r) === c),
      thresholdCores,
    );
    if (l) out.push(l);
  }
  return out;
}

/** Every round of each matrix (all its cells' windows summed), with the waits --wait-quiet made. */
export function roundLoads(
  rows: Parameters<typeof cellLoads>[0],
  thresholdCores: number,
  waits: readonly QuietWait[] = [],
): RoundLoad[] {
  const cells = cellLoads(rows, thresholdCores);
  const out: RoundLoad[] = [];
  const matrices: ["latency" | "memory", Row[]][] = [
    ["latency", [...rows.latency, ...(rows.aa?.latency ?? [])]],
    ["memory", [...rows.memory, ...(rows.aa?.memory ?? [])]],
  ];
  for (const [matrix, list] of matrices) {
    for (const r of roundsOf(list, thresholdCores)) {
      const wait = waits.find((w) => w.matrix === matrix && w.round === r.round);
      out.push({
        matrix,
        round: r.round,
        ms: r.ms,
        loadAvg1: r.loadAvg1,
        otherCores: r.otherCores,
        stealCores: r.stealCores,
        disturbedCells: cells
          .filter((c) => c.matrix === matrix && c.rounds.some((cr) => cr.round === r.round && cr.disturbed))
          .map((c) => c.cell),
        disturbed: r.disturbed,
        ...(wait ? { waitedMs: wait.waitedMs, settled: wait.settled } : {}),
      });
    }
  }
  return out;
}

/**
 * The reason to add to a "noise" verdict of a cell measured on a busy machine (at least BUSY_SHARE
 * of its rounds disturbed), or null.
 */
export function busyReason(load: CellLoad | undefined): string | null {
  if (!load || load.disturbed === 0 || load.disturbed < BUSY_SHARE * load.rounds.length) return null;
  return `machine busy: ${load.disturbed} of ${load.rounds.length} rounds disturbed (others' CPU + steal up to ${load.maxForeignCores.toFixed(2)} cores)`;
}

/**
 * --wait-quiet: looks at the machine over windows (`sample` returns the foreign load of one window)
 * until one is below the threshold or the budget is spent; the budget bounds the whole pause.
 */
export async function waitQuiet(options: {
  budgetMs: number;
  thresholdCores: number;
  sample: () => Promise<LoadFigures>;
  now: () => number;
  /** True once the run is being stopped: the pause ends at once, unsettled. */
  stopped?: () => boolean;
}): Promise<{ waitedMs: number; settled: boolean; foreignCores: number }> {
  const start = options.now();
  for (;;) {
    const f = await options.sample();
    const foreign = f.otherCores + f.stealCores;
    const waitedMs = options.now() - start;
    if (options.stopped?.()) return { waitedMs, settled: false, foreignCores: foreign };
    if (foreign < options.thresholdCores) return { waitedMs, settled: true, foreignCores: foreign };
    if (waitedMs >= options.budgetMs) return { waitedMs, settled: false, foreignCores: foreign };
  }
}

/** The run's threshold: as recorded in its load (or config), else the default. */
export function thresholdOf(results: Pick<Results, "load" | "run">): number {
  const configured = results.run?.config?.disturbedCores;
  return results.load?.thresholdCores ?? (typeof configured === "number" ? configured : DEFAULT_DISTURBED_CORES);
}

/**
 * A function that adds "machine busy: …" to the reason of a noise verdict whose cell was measured
 * on a busy machine (see busyReason); other verdicts pass unchanged.
 */
export function withBusyReason(
  results: Pick<Results, "latency" | "memory" | "aa" | "load" | "run">,
): <V extends { cell: string; verdict: string; reason: string }>(v: V, matrix: "latency" | "memory") => V {
  const loads = cellLoads(results, thresholdOf(results));
  return (v, matrix) => {
    if (v.verdict !== "noise") return v;
    const why = busyReason(loads.find((l) => l.matrix === matrix && l.cell === v.cell));
    return why ? { ...v, reason: `${v.reason}; ${why}` } : v;
  };
}
