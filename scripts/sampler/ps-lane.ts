// The RSS lane through pidusage's ps mode (process-stats.ts): the portable path. One `ps` run per
// reading, one in flight, on the main thread's event loop (a `ps` run is a child process: it waits
// for no thread of ours). Deadline-scheduled like the /proc lane: slot k is due at start + k ×
// interval, a reading that comes late skips the slots it missed (counted), and every reading is
// handed over at once as a batch of one.
import { psReading } from "./process-stats.js";
import type { RssBatch, RssLane } from "./rss-lane.js";

export interface PsLaneOptions {
  pid: number;
  intervalMs: number;
  /** performance.now() value that is t = 0. */
  origin: number;
  onBatch: (batch: RssBatch) => void;
}

/** Starts the ps lane of pid; resolves once its first reading arrived, rejects if that failed. */
export async function startPsLane({ pid, intervalMs, origin, onBatch }: PsLaneOptions): Promise<RssLane> {
  const now = () => performance.now() - origin;
  let missed = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  const read = async (): Promise<{ t: number; rss: number; readMs: number }> => {
    const t = now();
    const { rss } = await psReading(pid);
    return { t, rss, readMs: now() - t };
  };
  const first = await read().catch((e: Error) => {
    throw new Error(`cannot read pid ${pid} through ps: ${e.message}`);
  });
  const start = first.t;
  const batch = (r: { t: number; rss: number; readMs: number } | null, final: boolean, error: string | null) =>
    onBatch({
      t: r ? [r.t] : [],
      rss: r ? [r.rss] : [],
      reads: r ? [r.readMs] : [],
      missed,
      upTo: now(),
      final,
      error,
      // pidusage's ps mode fails this way only when ps found no such process.
      gone: error !== null && /no matching pid|gone/i.test(error),
    });
  batch(first, false, null);
  const loop = (async () => {
    for (let k = 0; ; ) {
      const nextK = Math.max(k + 1, Math.ceil((now() - start) / intervalMs));
      missed += nextK - (k + 1);
      k = nextK;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, Math.max(0, start + k * intervalMs - now()));
      });
      if (stopped) return batch(null, true, null);
      try {
        batch(await read(), false, null);
      } catch (e) {
        return batch(null, true, `ps could not read process ${pid}: ${(e as Error).message}`);
      }
      if (stopped) return batch(null, true, null);
    }
  })();
  return {
    tid: null,
    scheduling: "normal",
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      return loop;
    },
  };
}
