// The leak cycles as a phase of the run. The A/A copy does not run here: the leak verdict is per
// variant, against a fixed threshold.

import { type Phase, runnerBase } from "../run/run-context.js";
import { runLeak } from "./leak-cycles.js";

export const leakPhase: Phase = (ctx) => {
  const { config, fixtures, progress, stops, file } = ctx;
  const { leak, memory } = config;
  const total = leak.cycles > 0 ? (leak.warmup + leak.cycles) * ctx.variants.names.length : 0;
  const label = (variant: string, cycle: number, of: number) => `leak ${variant}, cycle ${cycle}/${of}`;
  const run = async () => {
    if (!fixtures.leak || stops.stopped()) return;
    const rows = await runLeak({
      ...runnerBase(ctx),
      leak,
      clients: memory.clients[0] ?? 1,
      fixture: fixtures.leak,
      targets: ctx.launch.targets,
      runClients: ctx.sampledClients,
      onCycleStart: (v, c, of) => progress.trial(label(v, c, of)),
      onCycle: (v, c, of, ok) => progress.done(label(v, c, of), ok),
      onCrash: (c) => ctx.crash(c, "leak", false),
    });
    for (const row of rows) file.addLeak(row);
  };
  return { kinds: Array.from({ length: total }, () => "leak"), run };
};
