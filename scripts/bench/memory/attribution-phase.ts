// --attribute as a phase of the run: unmeasured profiling trials of each memory cell and real
// variant, after the measured rounds. They are not planned up front: they join the total when they start.

import { memoryCellLabel } from "../progress/progress.js";
import { trialKind } from "../rounds/plan.js";
import { type Phase, runnerBase } from "../run/run-context.js";
import { attributionPlan, runAttribution } from "./attribute.js";

export const attributionPhase: Phase = (ctx) => {
  const { config, fixtures, variants, progress, stops, file } = ctx;
  const { memory } = config;
  const label = (t: Parameters<typeof memoryCellLabel>[0] & { trial: number }) =>
    `attribute ${memoryCellLabel(t)}, ${t.trial === 1 ? "peak" : "total"} profile`;
  const run = async () => {
    if (!memory.attribute || !memory.enabled || stops.stopped()) return;
    const { intervalBytes } = memory.attribute;
    const plan = attributionPlan(ctx.cells, variants.names);
    progress.grow(plan.length, plan.map(trialKind));
    await runAttribution(
      {
        ...runnerBase(ctx),
        memory,
        failFast: false,
        fixtures: fixtures.memory,
        runDir: ctx.runDir,
        targets: variants.targets,
        pinning: ctx.pinning ?? undefined,
        runClients: ctx.sampledClients,
        intervalBytes,
        onTrialStart: (t) => progress.trial(label(t)),
        onCrash: (c) => ctx.crash(c, "memory", false),
        onAttribution: (row) => {
          file.addAttribution(row, intervalBytes);
          progress.done(label({ ...row, trial: row.kind === "peak" ? 1 : 2 }), row.ok);
        },
      },
      ctx.cells,
      variants.names,
    );
  };
  return { kinds: [], run };
};
