// The machine's load as results.json keeps it: per trial (row.load) and per round (run.load).

/** One reading of the machine's counters (clock ticks of /proc/stat and /proc/PID/stat; USER_HZ cancels out). */
export interface LoadSnapshot {
  /** Monotonic ms. */
  t: number;
  cores: number;
  /** user + nice + system of every CPU, all processes (ticks). */
  busyTicks: number;
  stealTicks: number;
  /** Every field of the "cpu" line: the window's capacity (ticks). */
  totalTicks: number;
  /** CPU of the harness's own process tree: itself, its live descendants, and its reaped children (ticks). */
  ownTicks: number;
  /** 1-minute load average at the reading. */
  loadAvg1: number;
}

/** What a trial's window saw, kept in its row as `load`: the counters' differences (raw ticks, so
 * windows can be summed), its length in ms, and the 1-minute load average at its end. */
export interface TrialLoad extends Omit<LoadSnapshot, "t"> {
  ms: number;
}

/** A window's load in cores: others' CPU (busy minus ours) and steal. */
export interface LoadFigures {
  otherCores: number;
  stealCores: number;
}

/** A whole round of a matrix (every cell and variant), as results.json keeps it under load.rounds. */
export interface RoundLoad extends LoadFigures {
  matrix: "latency" | "memory";
  round: number;
  ms: number;
  loadAvg1: number;
  /** Cells of this round that were disturbed. */
  disturbedCells: string[];
  disturbed: boolean;
  /** --wait-quiet: how long the harness waited before this round, and whether the machine settled. */
  waitedMs?: number;
  settled?: boolean;
}

/** --wait-quiet's record of one pause. */
export interface QuietWait {
  matrix: "latency" | "memory";
  round: number;
  waitedMs: number;
  settled: boolean;
  /** Others' CPU + steal of the last window looked at (cores). */
  foreignCores: number;
}

/** results.json's `load`: the settings, and every round's figures. */
export interface RunLoad {
  thresholdCores: number;
  waitQuietSeconds: number | null;
  rounds: RoundLoad[];
}
