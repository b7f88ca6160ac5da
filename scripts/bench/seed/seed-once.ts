// One seed outside a run (bench:seed, tests): the config's first target, from a fixture file, into a
// new folder under `dir`, its binding loaded as a run loads it.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { readFixtureMeta } from "../../../fixtures/meta.js";
import { loadBinding } from "../../seed/load-binding.js";
import type { BenchConfig } from "../run/config.js";
import { type SeedResult, seedState } from "./seed-state.js";

/** Seeds the config's first target (a command with a binding); the result and its state folder. */
export async function seedOnce(
  config: BenchConfig,
  fixture: string,
  where: { dir: string; root: string },
  log: (line: string) => void = () => undefined,
): Promise<SeedResult & { stateDir: string }> {
  const spec = config.targets.targets[0];
  const { module, timeoutMs } = config.binding;
  if (spec?.kind !== "command" || module === null) {
    throw new Error("seedOnce: the config's first target must be a command, with a binding");
  }
  const loaded = await loadBinding(module, where.root, where.dir, timeoutMs);
  const stateDir = mkdtempSync(join(where.dir, "state-"));
  const r = await seedState(
    spec,
    { path: fixture, meta: readFixtureMeta(fixture) },
    {
      config,
      launch: config.targets,
      loaded,
      workDir: where.dir,
      io: { log, signal: new AbortController().signal },
      stateDir,
    },
  );
  return { ...r, stateDir };
}
