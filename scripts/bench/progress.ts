// Progress of a bench run on stderr: a cli-progress bar (cell, trial i/N, elapsed, ETA) on a TTY,
// one plain line per finished trial otherwise (CI logs). Separate from measuring, as in autocannon.
import cliProgress from "cli-progress";
import { memoryCellName } from "../results/cell-names.js";
import { Eta, etaText, type MsRange, type Reserve, rangeText } from "./eta.js";

/** "resume-many legacy, trial 2/3" (with "A/A " in front for the A/A run): the bar's cell label. */
export function trialLabel(cell: string, trial: number, of: number, aa = false): string {
  return `${aa ? "A/A " : ""}${cell}, trial ${trial}/${of}`;
}

/** A trial's label; a round past the plan is an adaptive one (`added` names which), and says so. */
export function roundLabel(
  cell: string,
  trial: number,
  planned: number,
  aa: boolean,
  added = "auto-sample round",
): string {
  return trial > planned ? `${aa ? "A/A " : ""}${cell}, ${added} ${trial}` : trialLabel(cell, trial, planned, aa);
}

/** "memory 1 KiB × 10, resume legacy": a memory cell (named as in the report) and variant. */
export function memoryCellLabel(t: { scriptBytes: number; clients: number; mode: string; variant: string }): string {
  return `memory ${memoryCellName(t)} ${t.variant}`;
}

export interface Progress {
  /**
   * `kinds`: each planned trial's kind ("latency", "memory:8192x4/memory", ...), for a weighted ETA;
   * `reserves`: the adaptive rounds that may join, by name. Says the whole run's expected length first.
   */
  start(total: number, kinds?: readonly string[], reserves?: Readonly<Record<string, Reserve>>): void;
  /** More trials joined the run (adaptive rounds, from the reserve named): the total grows with them. */
  grow(more: number, kinds?: readonly string[], reserve?: string): void;
  /** The named reserve's rounds are done: the estimate's range narrows. */
  settle(reserve: string): void;
  trial(label: string): void;
  done(label: string, ok: boolean): void;
  log(line: string): void;
  /** Ctrl-C/SIGTERM: the bar goes away for good (no redraw of "0/N" after it); later lines are plain. */
  interrupt(line: string): void;
  /** The bar goes; the last line states the actual wall time beside the first estimate. */
  stop(): void;
}

const FORMAT = "{bar} {value}/{total} | {cell} | elapsed {duration_formatted} | ETA {eta_weighted}";

/**
 * The bar's line. The ETA is ours (eta.ts: weighted by each kind of trial's measured duration), not
 * cli-progress's count of trials; before the first trial finished there is nothing to estimate from: "ETA n/a".
 */
export function formatBar(
  options: cliProgress.Options,
  params: cliProgress.Params,
  payload: Record<string, unknown>,
): string {
  const eta = params.value === 0 || typeof payload.eta_weighted !== "string" ? "n/a" : payload.eta_weighted;
  return cliProgress.Format.Formatter({ ...options, format: FORMAT }, params, { ...payload, eta_weighted: eta });
}

/** Times each trial (start to done) and the whole run, and feeds the weighted ETA. */
function timer(now: () => number) {
  let eta = new Eta([]);
  let startedAt: number | null = null;
  let runStart = now();
  let first: MsRange | null = null;
  const kindsOf = (n: number, kinds: readonly string[] | undefined) =>
    kinds ?? Array.from({ length: n }, () => "latency");
  return {
    plan(total: number, kinds: readonly string[] | undefined, reserves: Readonly<Record<string, Reserve>> = {}) {
      eta = new Eta(kindsOf(total, kinds), reserves);
      runStart = now();
      first = eta.rangeMs();
    },
    grow(more: number, kinds: readonly string[] | undefined, reserve: string | undefined) {
      eta.grow(kindsOf(more, kinds), reserve ?? null);
    },
    settle(reserve: string) {
      eta.settle(reserve);
    },
    started() {
      startedAt ??= now();
    },
    /** Records the trial; the time left, "n/a" before any measurement. */
    finished(): { text: string; adaptive: boolean } {
      const t = now();
      eta.record(startedAt === null ? 0 : t - startedAt);
      startedAt = null;
      return { text: rangeText(eta.remainingMs()), adaptive: eta.hasReserves() };
    },
    /** "expected run time 5m 10s–11m 40s (216 planned trials, then adaptive rounds)": the first line. */
    expectation(total: number, reserves: Readonly<Record<string, Reserve>> = {}): string {
      const names = Object.keys(reserves);
      const then = names.length > 0 ? `, then adaptive rounds (${names.join(", ")}) as the verdicts need them` : "";
      return `catchup-bench: expected run time ${rangeText(first)} (${total} planned trials${then})`;
    },
    /** "run time 9m 53s (expected 5m 10s–11m 40s at the start)": the last line. */
    summary(): string {
      return `catchup-bench: run time ${etaText(now() - runStart)} (expected ${rangeText(first)} at the start)`;
    },
  };
}

export function createProgress(
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = () => performance.now(),
): Progress {
  let total = 0;
  let finished = 0;
  const clock = timer(now);
  if (!stream.isTTY) {
    return {
      start(t, kinds, reserves) {
        total = t;
        clock.plan(t, kinds, reserves);
        stream.write(`${clock.expectation(t, reserves)}\n`);
      },
      grow(more, kinds, reserve) {
        total += more;
        clock.grow(more, kinds, reserve);
      },
      settle(reserve) {
        clock.settle(reserve);
      },
      trial() {
        clock.started();
      },
      done(label, ok) {
        finished++;
        const eta = clock.finished();
        stream.write(
          `[${finished}/${total}] ${label}${ok ? "" : " FAILED"}${finished < total || eta.adaptive ? ` (ETA ${eta.text})` : ""}\n`,
        );
      },
      log(line) {
        stream.write(`${line}\n`);
      },
      interrupt(line) {
        stream.write(`${line}\n`);
      },
      stop() {
        if (finished > 0) stream.write(`${clock.summary()}\n`);
      },
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: formatBar,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let interrupted = false;
  return {
    start(t, kinds, reserves) {
      total = t;
      clock.plan(t, kinds, reserves);
      stream.write(`${clock.expectation(t, reserves)}\n`);
      if (interrupted) return;
      bar.start(total, 0, { cell: "starting" });
      started = true;
    },
    grow(more, kinds, reserve) {
      total += more;
      clock.grow(more, kinds, reserve);
      if (started) bar.setTotal(total);
    },
    settle(reserve) {
      clock.settle(reserve);
    },
    trial(label) {
      clock.started();
      if (started) bar.update({ cell: label });
    },
    done(label, ok) {
      finished++;
      const eta = clock.finished();
      if (started) bar.update({ eta_weighted: eta.text });
      if (!started) {
        if (interrupted) stream.write(`[${finished}/${total}] ${label}${ok ? "" : " FAILED"}\n`);
        return;
      }
      if (!ok) bar.update({ cell: `${label} FAILED` });
      bar.update(finished);
    },
    log(line) {
      if (started) bar.stop();
      stream.write(`${line}\n`);
      if (started) bar.start(total, finished, { cell: "" });
    },
    interrupt(line) {
      if (started) bar.stop();
      started = false;
      interrupted = true;
      stream.write(`${line}\n`);
    },
    stop() {
      if (started) bar.stop();
      started = false;
      if (finished > 0) stream.write(`${clock.summary()}\n`);
    },
  };
}
