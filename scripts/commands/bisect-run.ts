// `history confirm` and `bisect`, callable from a program: flags in, exit code out. Both measure
// through bench (history-run.ts's measure context) and keep what they decide in the history store.
import { BISECT_COMMAND, HISTORY_CONFIRM_COMMAND } from "../options/history.js";
import { readFlags } from "../options/spec.js";
import { EXIT, signalExitCode } from "../util/exit-codes.js";
import { UsageError } from "../util/usage.js";
import { defaultIO, type HistoryIO, measureContext, openFromFlags, refsErrors, withConfigFile } from "./history-run.js";

type Raw = Record<string, unknown>;

/** The first try's pairs (--trials, as bench reads it) and the cap; a cap below the first try is a usage error. */
function pairSettings(ctx: Measuring["ctx"], maxPairs: number) {
  const pairs = ctx.configFor("BASE", "HEAD", "OUT").latency.trials;
  if (pairs > maxPairs) {
    throw new UsageError(
      `--max-pairs ${maxPairs} is below --trials ${pairs}: give a cap of at least the first try's pairs`,
    );
  }
  return { pairs, maxPairs };
}

type Measuring = Awaited<ReturnType<typeof measuring>>;

async function measuring(argv: Raw, io: HistoryIO, branch: string | undefined) {
  const { raw, configFile } = withConfigFile(argv, io.cwd);
  const ctx0 = await measureContext(raw, configFile, branch, io);
  const store = await openFromFlags({ ...raw, repo: ctx0.repo }, io.cwd);
  return { raw, ctx: { ...ctx0, store } };
}

export async function runConfirm(argv: Raw, io: HistoryIO = defaultIO()): Promise<number> {
  const f0 = readFlags(HISTORY_CONFIRM_COMMAND.options, withConfigFile(argv, io.cwd).raw);
  const { raw, ctx } = await measuring(argv, io, f0.branch);
  const f = readFlags(HISTORY_CONFIRM_COMMAND.options, raw);
  const [{ confirmAlerts }, { bisectLines, confirmationLines }] = await Promise.all([
    import("../history/confirm.js"),
    import("../report/bisect-lines.js"),
  ]);
  try {
    const settings = pairSettings(ctx, f["max-pairs"]);
    const detect = { pValue: f["p-value"], window: f.window, permutations: f.permutations };
    const done = await refsErrors(
      () => confirmAlerts(ctx, { detect, settings, bisect: f.bisect, log: (l) => io.err(`${l}\n`) }),
      io,
    );
    if (typeof done === "number") return done;
    const list = done.confirmed.map((c) => ({ ...c, culprits: c.bisect?.culprits.map((k) => k.commit) ?? null }));
    if (f.json) {
      io.out(
        `${JSON.stringify({ store: ctx.store.location, branch: ctx.branch, confirmations: list, stoppedBy: done.stoppedBy }, null, 2)}\n`,
      );
    } else {
      io.out(`${confirmationLines(list).join("\n")}\n`);
      for (const c of done.confirmed) if (c.bisect) io.out(`${bisectLines(c.bisect).join("\n")}\n`);
    }
    if (done.stoppedBy === "SIGINT" || done.stoppedBy === "SIGTERM") return signalExitCode(done.stoppedBy);
    return EXIT.ok;
  } finally {
    await ctx.store.close();
  }
}

export async function runBisect(argv: Raw, io: HistoryIO = defaultIO()): Promise<number> {
  const f0 = readFlags(BISECT_COMMAND.options, withConfigFile(argv, io.cwd).raw);
  if (f0.good === undefined || f0.bad === undefined) throw new UsageError("bisect needs --good REV and --bad REV");
  const { raw, ctx } = await measuring(argv, io, f0.branch);
  const f = readFlags(BISECT_COMMAND.options, raw);
  const [{ runBisection }, { bisectLines }] = await Promise.all([
    import("../history/bisect.js"),
    import("../report/bisect-lines.js"),
  ]);
  try {
    const settings = pairSettings(ctx, f["max-pairs"]);
    const report = await refsErrors(
      () =>
        runBisection(ctx, {
          good: f.good as string,
          bad: f.bad as string,
          focus: null,
          settings,
          log: (l) => io.err(`${l}\n`),
        }),
      io,
    );
    if (typeof report === "number") return report;
    if (f.json) io.out(`${JSON.stringify({ store: ctx.store.location, branch: ctx.branch, ...report }, null, 2)}\n`);
    else io.out(`${bisectLines(report).join("\n")}\n`);
    if (report.stoppedBy === "SIGINT" || report.stoppedBy === "SIGTERM") return signalExitCode(report.stoppedBy);
    return report.outcome === "UNKNOWN" ? EXIT.noResult : EXIT.ok;
  } finally {
    await ctx.store.close();
  }
}
