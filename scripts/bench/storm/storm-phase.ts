// The storm cells as a phase of the run. As in memory cells, the A/A copy runs in every round
// (rotated with the others): each storm cell gets its noise band.

import { size } from "../../util/format.js";
import { trialLabel } from "../progress/progress.js";
import type { TargetSpec } from "../run/config.js";
import { type Phase, runnerBase } from "../run/run-context.js";
import { runStorm } from "./storm-cells.js";

export const stormPhase: Phase = (ctx) => {
  const { config, fixtures, variants, progress, stops, file } = ctx;
  const { storm, memory } = config;
  const total = storm.clients.length * memory.scriptBytes.length * storm.trials * variants.all.length;
  const label = (c: { clients: number; scriptBytes: number; variant: string; trial: number }) =>
    trialLabel(
      `storm ${c.clients} × ${size(c.scriptBytes)} ${c.variant}`,
      c.trial,
      storm.trials,
      variants.isAa(c.variant),
    );
  const run = async () => {
    if (storm.clients.length === 0 || stops.stopped()) return;
    await runStorm({
      ...runnerBase(ctx),
      storm,
      scriptBytes: memory.scriptBytes,
      memory,
      fixtures: fixtures.storm,
      runDir: ctx.runDir,
      targets: variants.all.map((n) => variants.targets.get(n) as TargetSpec),
      aaVariant: variants.aa,
      onLimits: (line) => progress.log(line),
      onCellStart: (c) => progress.trial(label(c)),
      onCrash: (c) => ctx.crash(c, "storm", variants.isAa(c.variant)),
      onRow: (row) => {
        file.addStorm(row);
        progress.done(label(row), row.ok === row.clients);
      },
    });
  };
  return { kinds: Array.from({ length: total }, () => "storm"), run };
};
