// Progress of a bench run on stderr: a cli-progress bar (cell, trial i/N, elapsed, ETA) on a TTY,
// one plain line per finished trial otherwise (CI logs). Separate from measuring, as in autocannon.
import cliProgress from "cli-progress";

/** "resume-many legacy, trial 2/3" (with "A/A " in front for the A/A run): the bar's cell label. */
export function trialLabel(cell: string, trial: number, of: number, aa = false): string {
  return `${aa ? "A/A " : ""}${cell}, trial ${trial}/${of}`;
}

export interface Progress {
  start(total: number): void;
  /** More trials joined the run (auto-sampling's extra rounds): the total grows with them. */
  grow(more: number): void;
  trial(label: string): void;
  done(label: string, ok: boolean): void;
  log(line: string): void;
  /** Ctrl-C/SIGTERM: the bar goes away for good (no redraw of "0/N" after it); later lines are plain. */
  interrupt(line: string): void;
  stop(): void;
}

const FORMAT = "{bar} {value}/{total} | {cell} | elapsed {duration_formatted} | ETA {eta_formatted}";

/**
 * The bar's line. Before the first trial finished there is nothing to estimate from: "ETA n/a",
 * not cli-progress's "ETA 0s".
 */
export function formatBar(
  options: cliProgress.Options,
  params: cliProgress.Params,
  payload: Record<string, unknown>,
): string {
  const format = params.value === 0 ? FORMAT.replace("{eta_formatted}", "n/a") : FORMAT;
  return cliProgress.Format.Formatter({ ...options, format }, params, payload);
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  let total = 0;
  let finished = 0;
  if (!stream.isTTY) {
    return {
      start(t) {
        total = t;
      },
      grow(more) {
        total += more;
      },
      trial() {},
      done(label, ok) {
        finished++;
        stream.write(`[${finished}/${total}] ${label}${ok ? "" : " FAILED"}\n`);
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
    start(t) {
      total = t;
      if (interrupted) return;
      bar.start(total, 0, { cell: "starting" });
      started = true;
    },
    grow(more) {
      total += more;
      if (started) bar.setTotal(total);
    },
    trial(label) {
      if (started) bar.update({ cell: label });
    },
    done(label, ok) {
      finished++;
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
