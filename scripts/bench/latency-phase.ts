// The latency matrix as a phase of the run: its planned trials, then whatever auto-sampling adds.
import { runLatency } from "./latency.js";
import { latencyPlan, trialKind } from "./plan.js";
import { roundLabel } from "./progress.js";
import type { Phase } from "./run-context.js";

export const latencyPhase: Phase = (ctx) => {
  const { config, fixtures, variants, progress, stops, load, file } = ctx;
  const { latency } = config;
  const plan = latency.enabled ? latencyPlan(fixtures.cases, variants.all, latency.trials) : [];
  const label = (t: { case: string; variant: string; trial: number }) =>
    roundLabel(`${t.case} ${t.variant}`, t.trial, latency.trials, variants.isAa(t.variant));
  const run = async () => {
    if (!fixtures.latency || plan.length === 0) return;
    await runLatency({
      more: ctx.adaptive.moreLatency,
      protocol: config.protocol,
      launch: ctx.launch,
      failFast: config.run.failFast,
      fixture: fixtures.latency,
      workDir: fixtures.workDir,
      targets: variants.targets,
      plan,
      runClients: ctx.runClients,
      stopped: stops.stopped,
      track: stops.track,
      signal: stops.signal,
      onTrialStart: (t) => progress.trial(label(t)),
      onCrash: (c) => ctx.crash(c, "latency", variants.isAa(c.variant)),
      beforeTrial: (t) => load.beforeTrial("latency", t.trial, stops.signal),
      onRow: (measured) => {
        const row = { ...measured, load: load.afterTrial() };
        file.addLatency(row, variants.isAa(row.variant));
        progress.done(label(row), row.ok);
      },
    });
  };
  return { kinds: plan.map(trialKind), run };
};
