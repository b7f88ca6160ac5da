// Progress of a bench run on stderr: a cli-progress bar (cell, trial i/N, elapsed, ETA) on a TTY,
// one plain line per finished trial otherwise (CI logs). Separate from measuring, as in autocannon.
import cliProgress from "cli-progress";
import { memoryCellName } from "../../results/cell-names.js";
import { calibrate } from "../run/machine.js";
import { Eta, etaText, type MsRange, machineScale, type Reserve, rangeText } from "./eta.js";

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

const FORMAT = "{bar} {value}/{total}{added} | {cell} | elapsed {duration_formatted} | ETA {eta_weighted}";

/**
 * The count of finished trials: "12/216", and once rounds were added, the plan's part and the added
 * part apart ("216/216 + 3/24 added"), so a full plan never falls back as the total grows. Added trials
 * run after the planned ones (as the ETA assumes).
 */
export function countText(finished: number, planned: number, added: number): string {
  if (added === 0) return `${finished}/${planned}`;
  return `${Math.min(finished, planned)}/${planned} + ${Math.max(0, finished - planned)}/${added} added`;
}

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
  const added = typeof payload.added === "string" ? payload.added : "";
  return cliProgress.Format.Formatter({ ...options, format: FORMAT }, params, { ...payload, eta_weighted: eta, added });
}

/** Times each trial (start to done) and the whole run, and feeds the weighted ETA. */
function timer(now: () => number, scale: () => number) {
  let eta = new Eta([]);
  let startedAt: number | null = null;
  let runStart = now();
  let first: MsRange | null = null;
  let firstReserveMs = 0;
  let firstLookTrials = 0;
  const kindsOf = (n: number, kinds: readonly string[] | undefined) =>
    kinds ?? Array.from({ length: n }, () => "latency");
  return {
    plan(total: number, kinds: readonly string[] | undefined, reserves: Readonly<Record<string, Reserve>> = {}) {
      eta = new Eta(kindsOf(total, kinds), reserves, scale());
      runStart = now();
      first = eta.plannedMs();
      firstReserveMs = eta.reserveMs();
      firstLookTrials = eta.expectedTrials();
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
    /**
     * "expected run time 7m 10s–11m 05s for the 216 planned trials and the 120 the rounds add to the
     * first look, then up to 5m 00s of adaptive rounds (memory rounds) as the verdicts need them": the
     * first line, the plan's range calibrated on this machine.
     */
    expectation(total: number, reserves: Readonly<Record<string, Reserve>> = {}): string {
      const names = Object.keys(reserves);
      const ahead = firstLookTrials > 0 ? ` and the ${firstLookTrials} the rounds add to the first look` : "";
      const then =
        names.length > 0
          ? `, then up to ${etaText(firstReserveMs)} of adaptive rounds (${names.join(", ")}) as the verdicts need them`
          : "";
      return `catchup-bench: expected run time ${rangeText(first)} for the ${total} planned trials${ahead}${then}`;
    },
    /** "run time 9m 53s (expected 5m 10s–7m 40s at the start)": the last line. */
    summary(): string {
      return `catchup-bench: run time ${etaText(now() - runStart)} (expected ${rangeText(first)} at the start)`;
    },
  };
}

/** What both renderings share: the clock, and the planned, added and finished counts. */
function tally(now: () => number, scale: () => number) {
  const clock = timer(now, scale);
  const n = { planned: 0, added: 0, finished: 0 };
  return {
    clock,
    n,
    count: () => countText(n.finished, n.planned, n.added),
    start(t: number, kinds?: readonly string[], reserves?: Readonly<Record<string, Reserve>>): string {
      n.planned = t;
      clock.plan(t, kinds, reserves);
      return clock.expectation(t, reserves);
    },
    grow(more: number, kinds?: readonly string[], reserve?: string) {
      n.added += more;
      clock.grow(more, kinds, reserve);
    },
    /** One more trial finished: the ETA text, and whether to show it. */
    done(): { text: string; show: boolean } {
      n.finished++;
      const eta = clock.finished();
      return { text: eta.text, show: n.finished < n.planned + n.added || eta.adaptive };
    },
  };
}

/** One plain line per finished trial (not a terminal: CI logs). */
function lineProgress(stream: NodeJS.WriteStream, t: ReturnType<typeof tally>): Progress {
  return {
    start(total, kinds, reserves) {
      stream.write(`${t.start(total, kinds, reserves)}\n`);
    },
    grow: (more, kinds, reserve) => t.grow(more, kinds, reserve),
    settle: (reserve) => t.clock.settle(reserve),
    trial: () => t.clock.started(),
    done(label, ok) {
      const eta = t.done();
      stream.write(`[${t.count()}] ${label}${ok ? "" : " FAILED"}${eta.show ? ` (ETA ${eta.text})` : ""}\n`);
    },
    log: (line) => stream.write(`${line}\n`),
    interrupt: (line) => stream.write(`${line}\n`),
    stop() {
      if (t.n.finished > 0) stream.write(`${t.clock.summary()}\n`);
    },
  };
}

/** A cli-progress bar on a terminal: the plan's trials fill it, added rounds are counted beside it. */
function barProgress(stream: NodeJS.WriteStream, t: ReturnType<typeof tally>): Progress {
  const bar = new cliProgress.SingleBar(
    { stream, format: formatBar, hideCursor: true, clearOnComplete: true, etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let interrupted = false;
  const added = () => (t.n.added > 0 ? ` + ${Math.max(0, t.n.finished - t.n.planned)}/${t.n.added} added` : "");
  const show = () => bar.update(Math.min(t.n.finished, t.n.planned), { added: added() });
  return {
    start(total, kinds, reserves) {
      stream.write(`${t.start(total, kinds, reserves)}\n`);
      if (interrupted) return;
      bar.start(total, 0, { cell: "starting", added: "" });
      started = true;
    },
    grow(more, kinds, reserve) {
      t.grow(more, kinds, reserve);
      if (started) show();
    },
    settle: (reserve) => t.clock.settle(reserve),
    trial(label) {
      t.clock.started();
      if (started) bar.update({ cell: label });
    },
    done(label, ok) {
      const eta = t.done();
      if (!started) {
        if (interrupted) stream.write(`[${t.count()}] ${label}${ok ? "" : " FAILED"}\n`);
        return;
      }
      bar.update({ eta_weighted: eta.text });
      if (!ok) bar.update({ cell: `${label} FAILED` });
      show();
    },
    log(line) {
      if (started) bar.stop();
      stream.write(`${line}\n`);
      if (started) bar.start(t.n.planned, Math.min(t.n.finished, t.n.planned), { cell: "", added: added() });
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
      if (t.n.finished > 0) stream.write(`${t.clock.summary()}\n`);
    },
  };
}

/**
 * The run's progress on stream. `scale`: how much longer than the priors a trial takes on this
 * machine now (by default a short calibration, machine.ts), asked once as the run starts.
 */
export function createProgress(
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = () => performance.now(),
  scale: () => number = () => machineScale(calibrate()),
): Progress {
  const t = tally(now, scale);
  return stream.isTTY ? barProgress(stream, t) : lineProgress(stream, t);
}
