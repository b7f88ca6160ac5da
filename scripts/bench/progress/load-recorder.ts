// Per-trial load windows for a bench run: a reading before each trial and one after it (kept in the
// row as `load`), and, with --wait-quiet, a bounded pause before each round until the machine
// settles. The judging is pure (disturbance.ts); this holds the readings and the clock.
import { setTimeout as sleep } from "node:timers/promises";
import type { LoadSnapshot, QuietWait, TrialLoad } from "../../results/load-record.js";
import { readLoadSnapshot } from "../../sampler/machine-load.js";
import { loadFigures, trialLoad, waitQuiet } from "../../verdicts/disturbance.js";

/** How long one --wait-quiet window looks at the machine (ms): long enough for the tick counters. */
export const QUIET_WINDOW_MS = 1000;

export interface LoadRecorder {
  /** Before a trial: waits for a quiet machine at a new round (with --wait-quiet), then reads. */
  beforeTrial(matrix: "latency" | "memory", round: number, signal?: AbortSignal): Promise<void>;
  /** After the trial: the window since beforeTrial, or null without a reading. */
  afterTrial(): TrialLoad | null;
  waits(): QuietWait[];
}

export function createLoadRecorder(options: {
  thresholdCores: number;
  waitQuietSeconds: number | null;
  log?: (line: string) => void;
  read?: () => LoadSnapshot | null;
}): LoadRecorder {
  const read = options.read ?? (() => readLoadSnapshot());
  let start: LoadSnapshot | null = null;
  let last: string | null = null;
  const waits: QuietWait[] = [];
  return {
    async beforeTrial(matrix, round, signal) {
      const key = `${matrix}:${round}`;
      if (options.waitQuietSeconds !== null && key !== last && !signal?.aborted) {
        const budgetMs = options.waitQuietSeconds * 1000;
        const result = await waitQuiet({
          budgetMs,
          thresholdCores: options.thresholdCores,
          now: () => performance.now(),
          stopped: () => signal?.aborted === true,
          sample: async () => {
            const a = read();
            await sleep(QUIET_WINDOW_MS, undefined, { signal }).catch(() => undefined);
            const b = read();
            return a && b ? loadFigures(trialLoad(a, b)) : { otherCores: 0, stealCores: 0 };
          },
        });
        waits.push({ matrix, round, ...result });
        if (result.waitedMs >= QUIET_WINDOW_MS * 1.5 || !result.settled) {
          options.log?.(
            `--wait-quiet: ${matrix} round ${round} ${result.settled ? "started after" : "started still busy after"} ${(result.waitedMs / 1000).toFixed(1)} s (others' CPU + steal ${result.foreignCores.toFixed(2)} cores)`,
          );
        }
      }
      last = key;
      start = read();
    },
    afterTrial() {
      const end = read();
      const load = start && end ? trialLoad(start, end) : null;
      start = null;
      return load;
    },
    waits: () => [...waits],
  };
}
