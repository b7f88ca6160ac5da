// Where a memory trial's wall time goes, phase by phase (ms), recorded in its row so a user can see
// what the harness spends around the measurement. Pure apart from the clock, which is passed in.

/**
 * The phases of a memory trial, in order; a phase that did not run is absent. The trial's wall time
 * is the sum from startWait on; copy and start are where startWait went, or, for a server started
 * ahead (row.startedAhead), time spent during the previous trial, at the lowest priority.
 */
export const TRIAL_PHASES = [
  "copy", // the fixture's private copy (foreign targets only: the bundled server opens it read-only)
  "start", // spawn until ready (ready line, inspector connected, pinned)
  "startWait", // this trial waiting for its server
  "baselineGc", // forced GC twice and the baseline heap
  "stopWait", // waiting for the previous trial's server to be gone (its stop overlaps this trial's start)
  "idle", // the sampler started, and its idle window before clients connect
  "clients", // connect, catch-up, hold, close: the measured part
  "samplerStop", // the sampler's lanes ended and flushed
  "postGc", // forced GC twice, post-GC heap, VmHWM
  "stop", // the target told to stop (SIGTERM; its exit overlaps the next trial, which waits in stopWait)
] as const;

export type TrialPhase = (typeof TRIAL_PHASES)[number];
export type TrialPhasesMs = Partial<Record<TrialPhase, number>>;

export interface TrialClock {
  /** Ends the phase running now (if any) and starts `phase`. */
  lap(phase: TrialPhase): void;
  /** Records a phase timed elsewhere (a server's start, perhaps during the previous trial). */
  record(phase: TrialPhase, ms: number): void;
  /** Ends the phase running now; the phases so far, rounded to 0.1 ms. */
  done(): TrialPhasesMs;
}

export function trialClock(now: () => number = () => performance.now()): TrialClock {
  const spent: TrialPhasesMs = {};
  let current: TrialPhase | null = null;
  let since = 0;
  const add = (phase: TrialPhase, ms: number) => {
    spent[phase] = Math.round(((spent[phase] ?? 0) + ms) * 10) / 10;
  };
  const close = () => {
    if (current === null) return;
    add(current, now() - since);
    current = null;
  };
  return {
    lap(phase) {
      close();
      current = phase;
      since = now();
    },
    record: add,
    done() {
      close();
      return { ...spent };
    },
  };
}

/** Memory trials' phases summed: the trial windows (startWait on), and the harness's share of them. */
export interface PhaseTotals {
  trials: number;
  /** Each phase's sum over the trials (ms). */
  phases: TrialPhasesMs;
  /** Σ trial windows: every phase but copy and start, which happen inside startWait or earlier (ms). */
  windowMs: number;
  /** 1 − Σ clients / Σ windows: what is not the measured part; null without trials. */
  harnessShare: number | null;
}

/** Sums the phaseMs of memory rows (rows without one are left out). */
export function phaseTotals(rows: readonly { phaseMs?: Readonly<Record<string, number>> }[]): PhaseTotals {
  const phases: TrialPhasesMs = {};
  let windowMs = 0;
  let trials = 0;
  for (const row of rows) {
    if (!row.phaseMs) continue;
    trials++;
    for (const phase of TRIAL_PHASES) {
      const ms = row.phaseMs[phase];
      if (ms === undefined) continue;
      phases[phase] = (phases[phase] ?? 0) + ms;
      if (phase !== "copy" && phase !== "start") windowMs += ms;
    }
  }
  const harnessShare = windowMs > 0 ? 1 - (phases.clients ?? 0) / windowMs : null;
  return { trials, phases, windowMs, harnessShare };
}
