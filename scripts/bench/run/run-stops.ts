// How a bench run stops: Ctrl-C/SIGTERM stops new trials and the running targets (their sessions
// then fail fast) and keeps the results; a second signal exits at once. --fail-fast and fatal errors
// end the run the same way, after the results are kept.
import { killAllNow } from "../../server-process/process.js";
import { type TargetRuntime, targetRuntime } from "../../server-process/runtime.js";
import { EXIT } from "../../util/exit-codes.js";
import { onStopSignals } from "../../util/stop-signals.js";
import { FailFast } from "../latency/latency.js";
import type { Progress } from "../progress/progress.js";
import type { Target } from "../trial/launch.js";

export interface RunStops {
  stopped(): boolean;
  /** Why the run stopped early (signal name, --fail-fast reason), or null. */
  reason(): string | null;
  /** The error that ended the run, when it was neither an interrupt nor --fail-fast. */
  fatal(): Error | null;
  /** Registers a running target so an interrupt can stop it; returns its untrack. */
  track(target: Target): () => void;
  /** Aborted on an interrupt: a target still starting (or warming up) stops at once. */
  signal: AbortSignal;
  /** An error thrown out of a phase ends the run (unless the interrupt itself caused it). */
  end(e: unknown): void;
  /** Removes the signal handlers and stops every target still running. */
  close(): Promise<void>;
  /** Each variant's runtime, read from its first started target (the report names the targets' Node). */
  runtime(variant: string): Promise<TargetRuntime> | undefined;
}

export function createRunStops(o: { progress: Progress; stopGraceMs: number; handleSignals: boolean }): RunStops {
  let reason: string | null = null;
  let fatal: Error | null = null;
  const running = new Set<Target>();
  const runtimes = new Map<string, Promise<TargetRuntime>>();
  const abort = new AbortController();
  const interrupt = (why: string) => {
    if (reason !== null) {
      // A second signal: do not wait for anything.
      killAllNow();
      process.exit(reason === "SIGTERM" ? EXIT.sigterm : EXIT.sigint);
    }
    reason = why;
    o.progress.interrupt(`${why}: stopping targets, keeping finished results`);
    abort.abort();
    for (const t of running) void t.stop(o.stopGraceMs);
  };
  const offSignals = o.handleSignals ? onStopSignals(interrupt) : () => undefined;
  return {
    stopped: () => reason !== null,
    reason: () => reason,
    fatal: () => fatal,
    track: (t) => {
      running.add(t);
      if (!runtimes.has(t.name)) runtimes.set(t.name, targetRuntime(t.pid));
      return () => running.delete(t);
    },
    signal: abort.signal,
    end: (e) => {
      // --fail-fast ends the run like an interrupt; anything else is fatal. An error caused by the
      // interrupt itself (a target stopped while starting) is not a second reason.
      if (reason !== null) return;
      if (!(e instanceof FailFast)) fatal = e as Error;
      reason = (e as Error).message;
    },
    close: async () => {
      offSignals();
      await Promise.all([...running].map((t) => t.stop(o.stopGraceMs)));
    },
    runtime: (variant) => runtimes.get(variant),
  };
}
