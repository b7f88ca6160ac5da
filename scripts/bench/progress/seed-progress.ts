// Progress of one seed: a bar with rate and ETA on a terminal, else a line at each quarter.
import cliProgress from "cli-progress";

export interface SeedProgress {
  update(done: number): void;
  stop(): void;
}

export function seedProgress(label: string, total: number, log: (line: string) => void): SeedProgress {
  const started = performance.now();
  const rate = (done: number) => Math.round(done / Math.max(0.001, (performance.now() - started) / 1000));
  if (process.stderr.isTTY) {
    const head = `seed ${label.replace(/[{}]/g, "")} [{bar}] {percentage}% | {value}/{total} events`;
    // Before the first write there is no rate to estimate from: "ETA n/a", not "0s".
    const format: cliProgress.GenericFormatter = (options, params, payload) =>
      cliProgress.Format.Formatter(
        { ...options, format: `${head}${params.value > 0 ? " | {rate}/s | ETA {eta_formatted}" : " | ETA n/a"}` },
        params,
        payload,
      );
    const bar = new cliProgress.SingleBar({ stream: process.stderr, format }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { rate: 0 });
    return { update: (done) => bar.update(done, { rate: rate(done) }), stop: () => bar.stop() };
  }
  let quarter = 0;
  return {
    update: (done) => {
      while (total > 0 && done * 4 >= total * (quarter + 1) && quarter < 4) {
        quarter++;
        const left = ((total - done) / Math.max(1, rate(done))).toFixed(0);
        log(`${label}: ${done}/${total} events (${rate(done)}/s, ETA ${left} s)`);
      }
    },
    stop: () => undefined,
  };
}
