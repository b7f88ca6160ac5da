// The sampler's heap lane: Runtime.getHeapUsage (or process.memoryUsage() for the RSS split) through
// the inspector, on this thread, one request in flight at a time, deadline-scheduled. The RSS lane
// (rss-lane.ts) never waits for it; the sampler (sampler.ts) records what it answers.
import type { HeapUsage, InspectorClient } from "./inspector.js";
import { type MemoryUsageReading, readMemoryUsage } from "./memory-usage.js";
import { isAlive } from "./procfs.js";

/** Slot bookkeeping of the heap lane (deadline-scheduled): slot k is due at start + k·interval. */
function deadlineLane(intervalMs: number, start: number) {
  let k = 0;
  let missed = 0;
  // Node's timers fire on a whole-millisecond clock, up to a millisecond early: a slot this close is due.
  const slack = Math.min(1, intervalMs / 2);
  return {
    get dueAt() {
      return start + k * intervalMs;
    },
    isDue(now: number) {
      return now >= start + k * intervalMs - slack;
    },
    /** Moves to the next slot still in the future, counting the ones skipped (the lane never drifts). */
    advance() {
      const elapsed = performance.now() - start;
      const nextK = Math.max(k + 1, Math.ceil(elapsed / intervalMs));
      missed += nextK - (k + 1);
      k = nextK;
    },
    get missed() {
      return missed;
    },
  };
}

export interface HeapLaneOptions {
  pid: number;
  inspector: InspectorClient;
  intervalMs: number;
  /** Timeout of one request (ms). */
  callTimeoutMs: number;
  /** Read the RSS split (process.memoryUsage()) rather than the heap alone; falls back when the target cannot. */
  split: boolean;
  /** ms from the sampler's origin. */
  now(): number;
  /** An answer that came while the lane runs: `asked` is when its request was sent. */
  onAnswer(t: number, asked: number, reading: HeapUsage | MemoryUsageReading): void;
  /** The target exited or its inspector closed: sampling ends for this reason. */
  onGone(reason: string): void;
}

export interface HeapLane {
  /** Stops asking; an answer still outstanding is dropped when it comes. */
  stop(): void;
  /** Requests that failed or timed out while the target lived. */
  readonly failed: number;
}

export function startHeapLane(o: HeapLaneOptions): HeapLane {
  const { pid, inspector } = o;
  let running = true;
  let inFlight = false;
  let splitting = o.split;
  let timer: NodeJS.Timeout | null = null;
  let asked = 0;
  let failed = 0;
  const slots = deadlineLane(o.intervalMs, performance.now());
  const goneReason = (detail: string) =>
    isAlive(pid)
      ? `inspector of pid ${pid} closed during sampling (${detail})`
      : `target pid ${pid} exited during sampling`;
  const schedule = () => {
    if (!running || inFlight) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, slots.dueAt - performance.now()));
  };
  const onAnswer = (h: HeapUsage | MemoryUsageReading) => {
    if (!inFlight) return; // an answer after its request timed out
    inFlight = false;
    if (!running) return; // answered after sampling ended: outside the window
    o.onAnswer(o.now(), asked, h);
    slots.advance();
    schedule();
  };
  const onFailure = (e: unknown) => {
    if (!inFlight) return;
    inFlight = false;
    if (!running) return;
    if (inspector.isClosed || !isAlive(pid)) {
      o.onGone(goneReason((e as Error)?.message ?? String(e)));
      return;
    }
    failed++;
    slots.advance();
    schedule();
  };
  const ask = () => {
    inFlight = true;
    asked = o.now();
    if (!splitting) {
      inspector.getHeapUsage(o.callTimeoutMs).then(onAnswer, onFailure);
      return;
    }
    readMemoryUsage(inspector, o.callTimeoutMs).then(onAnswer, (e: unknown) => {
      // A target that cannot run the expression (it threw, or answered no numbers): heap only from now on.
      if (!inspector.isClosed && isAlive(pid) && /evaluate threw|did not answer/.test(String(e))) splitting = false;
      onFailure(e);
    });
  };
  function tick() {
    timer = null;
    if (!running) return;
    if (!inFlight && slots.isDue(performance.now())) ask();
    schedule();
  }
  // End promptly when the inspector socket closes (target killed), even between samples.
  void inspector.closed.then((reason) => {
    if (running) o.onGone(goneReason(reason));
  });
  tick();
  return {
    stop() {
      running = false;
      if (timer) clearTimeout(timer);
    },
    get failed() {
      return failed;
    },
  };
}
