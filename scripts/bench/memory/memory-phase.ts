// The memory matrix as a phase of the run: its planned trials, then the adaptive rounds.
import type { MemoryRow } from "../../results/schema.js";
import { memoryCellLabel, roundLabel } from "../progress/progress.js";
import { memoryPlan, trialKind } from "../rounds/plan.js";
import { cellHooks, type Phase, runnerBase } from "../run/run-context.js";
import { runMemory } from "./memory.js";

/** Memory rounds past the plan come from sequential rounds or auto-sampling. */
const ADDED = "added round";

export const memoryPhase: Phase = (ctx) => {
  const { config, fixtures, variants, file } = ctx;
  const { memory } = config;
  const plan = memory.enabled ? memoryPlan(ctx.cells, variants.all, memory.trials) : [];
  const label = (t: Parameters<typeof memoryCellLabel>[0] & { trial: number }) =>
    roundLabel(memoryCellLabel(t), t.trial, memory.trials, variants.isAa(t.variant), ADDED);
  const run = async () => {
    if (plan.length === 0) return;
    await runMemory({
      ...runnerBase(ctx),
      more: ctx.adaptive.moreMemory,
      memory,
      failFast: config.run.failFast,
      fixtures: fixtures.memory,
      runDir: ctx.runDir,
      targets: variants.targets,
      plan,
      samplesPrefix: "",
      pinning: ctx.pinning ?? undefined,
      runClients: ctx.sampledClients,
      ...cellHooks<Parameters<typeof label>[0], MemoryRow>(ctx, "memory", label, (row, aa) => file.addMemory(row, aa)),
    });
  };
  return { kinds: plan.map(trialKind), run };
};
