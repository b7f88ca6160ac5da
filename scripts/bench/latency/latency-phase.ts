// The latency matrix as a phase of the run: its planned trials, then whatever auto-sampling adds.
import type { LatencyRow } from "../../results/schema.js";
import { roundLabel } from "../progress/progress.js";
import { latencyPlan, trialKind } from "../rounds/plan.js";
import { cellHooks, type Phase, runnerBase } from "../run/run-context.js";
import { runLatency } from "./latency.js";

export const latencyPhase: Phase = (ctx) => {
  const { config, fixtures, variants, file } = ctx;
  const { latency } = config;
  const plan = latency.enabled ? latencyPlan(fixtures.cases, variants.all, latency.trials) : [];
  const label = (t: { case: string; variant: string; trial: number }) =>
    roundLabel(`${t.case} ${t.variant}`, t.trial, latency.trials, variants.isAa(t.variant));
  const run = async () => {
    if (!fixtures.latency || plan.length === 0) return;
    await runLatency({
      ...runnerBase(ctx),
      more: ctx.adaptive.moreLatency,
      failFast: config.run.failFast,
      fixture: fixtures.latency,
      targets: variants.targets,
      plan,
      runClients: ctx.runClients,
      ...cellHooks<Parameters<typeof label>[0], LatencyRow>(ctx, "latency", label, (row, aa) =>
        file.addLatency(row, aa),
      ),
    });
  };
  return { kinds: plan.map(trialKind), run };
};
