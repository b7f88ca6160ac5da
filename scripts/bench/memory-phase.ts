// The memory matrix as a phase of the run: its planned trials, then the adaptive rounds.
import { runMemory } from "./memory.js";
import { memoryPlan, trialKind } from "./plan.js";
import { memoryCellLabel, roundLabel } from "./progress.js";
import type { Phase } from "./run-context.js";

/** Memory rounds past the plan come from sequential rounds or auto-sampling. */
const ADDED = "added round";

export const memoryPhase: Phase = (ctx) => {
  const { config, fixtures, variants, progress, stops, load, file } = ctx;
  const { memory } = config;
  const plan = memory.enabled ? memoryPlan(ctx.cells, variants.all, memory.trials) : [];
  const label = (t: Parameters<typeof memoryCellLabel>[0] & { trial: number }) =>
    roundLabel(memoryCellLabel(t), t.trial, memory.trials, variants.isAa(t.variant), ADDED);
  const run = async () => {
    if (plan.length === 0) return;
    await runMemory({
      more: ctx.adaptive.moreMemory,
      protocol: config.protocol,
      launch: ctx.launch,
      memory,
      failFast: config.run.failFast,
      fixtures: fixtures.memory,
      workDir: fixtures.workDir,
      runDir: ctx.runDir,
      targets: variants.targets,
      plan,
      stopped: stops.stopped,
      track: stops.track,
      signal: stops.signal,
      samplesPrefix: "",
      pinning: ctx.pinning ?? undefined,
      runClients: ctx.sampledClients,
      onTrialStart: (t) => progress.trial(label(t)),
      onCrash: (c) => ctx.crash(c, "memory", variants.isAa(c.variant)),
      beforeTrial: (t) => load.beforeTrial("memory", t.trial, stops.signal),
      onRow: (measured) => {
        const row = { ...measured, load: load.afterTrial() };
        file.addMemory(row, variants.isAa(row.variant));
        progress.done(label(row), row.ok);
      },
    });
  };
  return { kinds: plan.map(trialKind), run };
};
