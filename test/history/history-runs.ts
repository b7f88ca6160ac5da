// Test aid: synthetic run directories whose variants are commits (as a --ref run records them), for
// the history store's tests. Figures come from test/report/synthetic-run.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Results } from "../../scripts/results/schema.js";
import { syntheticResults } from "../report/synthetic-run.js";

export const SHA_A = "a".repeat(40);
export const SHA_B = "b".repeat(40);

/** Writes DIR/results.json of a synthetic run of `base` vs `head` and returns its results. */
export function refRunDir(dir: string, seed: number, head = SHA_B, base = SHA_A): Results {
  mkdirSync(dir, { recursive: true });
  const r = syntheticResults(dir, { seed, trials: 3, memoryTrials: 1, candidateFactor: 1.1 });
  r.variants[0] = { ...(r.variants[0] as Results["variants"][number]), commit: base, dirty: false };
  r.variants[1] = { ...(r.variants[1] as Results["variants"][number]), commit: head, dirty: false };
  writeFileSync(join(dir, "results.json"), JSON.stringify(r));
  return r;
}
