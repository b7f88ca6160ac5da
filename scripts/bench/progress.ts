// Progress of a bench run on stderr: a cli-progress bar (cell, trial i/N, elapsed, ETA) on a TTY,
// one plain line per finished trial otherwise (CI logs). Separate from measuring, as in autocannon.
import cliProgress from "cli-progress";
import { Eta, etaText } from "./eta.js";

/** "resume-many legacy, trial 2/3" (with "A/A " in front for the A/A run): the bar's cell label. */
export function trialLabel(cell: string, trial: number, of: number, aa = false): string {
  return `${aa ? "A/A " : ""}${cell}, trial ${trial}/${of}`;
}

export interface Progress {
  /** `kinds`: each planned trial's kind ("latency", "memory:8192x4/memory", ...), for a weighted ETA. */
  start(total: number, kinds?: readonly string[]): void;
  /** More trials joined the run (auto-sampling's extra rounds): the total grows with them. */
  grow(more: number, kinds?: readonly string[]): void;
  trial(label: string): void;
  done(label: string, ok: boolean): void;
  log(line: string): void;
  /** Ctrl-C/SIGTERM: the bar goes away for good (no redraw of "0/N" after it); later lines are plain. */
  interrupt(line: string): void;
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

/** Times each trial (start to done) and feeds the weighted ETA. */
function timer(now: () => number) {
  let eta = new Eta([]);
  let startedAt: number | null = null;
  return {
    plan(total: number, kinds: readonly string[] | undefined) {
      eta = new Eta(kinds ?? Array.from({ length: total }, () => "latency"));
    },
    grow(more: number, kinds: readonly string[] | undefined) {
      eta.grow(kinds ?? Array.from({ length: more }, () => "latency"));
    },
    started() {
      startedAt ??= now();
    },
    finished(): string {
      const t = now();
      eta.record(startedAt === null ? 0 : t - startedAt);
      startedAt = null;
      return etaText(eta.remainingMs());
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
      start(t, kinds) {
        total = t;
        clock.plan(t, kinds);
      },
      grow(more, kinds) {
        total += more;
        clock.grow(more, kinds);
      },
      trial() {
        clock.started();
      },
      done(label, ok) {
        finished++;
        const eta = clock.finished();
        stream.write(
          `[${finished}/${total}] ${label}${ok ? "" : " FAILED"}${finished < total ? ` (ETA ${eta})` : ""}\n`,
        );
      },
      log(line) {
        stream.write(`${line}\n`);
      },
      interrupt(line) {
        stream.write(`${line}\n`);
      },
      stop() {},
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
    start(t, kinds) {
      total = t;
      clock.plan(t, kinds);
      if (interrupted) return;
      bar.start(total, 0, { cell: "starting" });
      started = true;
    },
    grow(more, kinds) {
      total += more;
      clock.grow(more, kinds);
      if (started) bar.setTotal(total);
    },
    trial(label) {
      clock.started();
      if (started) bar.update({ cell: label });
    },
    done(label, ok) {
      finished++;
      const eta = clock.finished();
      if (started) bar.update({ eta_weighted: eta });
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
    },
  };
}
