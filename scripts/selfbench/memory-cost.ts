// `npm run bench:memory-cost`: what memory trials cost beyond the server's own work. Runs the default
// memory cells (`bench --no-latency --no-aa --memory-sequential 0`, --trials each) and prints, per
// phase, the mean per trial and its share of the trial windows; the harness's share is
// 1 − Σ clients / Σ windows, over all cells and over the 1 KiB cells alone. With --baseline DIR (a
// built checkout of another commit), both run in one session, in turns, the first one rotated each
// round, so the two shares are measured under the same load.
// Usage: node dist/scripts/selfbench/memory-cost.js [--rounds N] [--trials N] [--baseline DIR]
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type PhaseTotals, phaseTotals, TRIAL_PHASES } from "../bench/trial/trial-timing.js";
import type { MemoryRow } from "../results/schema.js";
import { intFlag, UsageError } from "../util/usage.js";
import { runBenchChild } from "./bench-child.js";

const HERE = fileURLToPath(new URL("../../../", import.meta.url));
interface Build {
  name: string;
  root: string;
  rows: MemoryRow[];
  wallMs: number;
}

/** One memory-only run of the default cells by the checkout at root; its memory rows and wall time. */
async function runOnce(root: string, trials: number): Promise<{ rows: MemoryRow[]; wallMs: number }> {
  const args = ["--no-latency", "--no-aa", "--memory-sequential", "0", "--memory-trials", String(trials)];
  const { results, wallMs } = await runBenchChild(root, args);
  return { rows: results.memory, wallMs };
}

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);

/** "123 (8.1%)": a phase's mean per trial and its share of the windows. */
function cell(t: PhaseTotals, phase: string): string {
  const ms = t.phases[phase as keyof PhaseTotals["phases"]];
  if (ms === undefined || t.trials === 0) return "–";
  const share = phase === "copy" || phase === "start" ? "" : ` (${pct(ms / t.windowMs)})`;
  return `${Math.round(ms / t.trials)}${share}`;
}

function printTable(builds: Build[]): void {
  const totals = builds.map((b) => phaseTotals(b.rows));
  const small = builds.map((b) => phaseTotals(b.rows.filter((r) => r.scriptBytes === 1024)));
  console.log(`| phase: mean ms per trial (share of the windows) | ${builds.map((b) => b.name).join(" | ")} |`);
  console.log(`|---|${builds.map(() => "---:").join("|")}|`);
  for (const phase of TRIAL_PHASES) console.log(`| ${phase} | ${totals.map((t) => cell(t, phase)).join(" | ")} |`);
  const row = (label: string, f: (t: PhaseTotals, i: number) => string) =>
    console.log(`| ${label} | ${totals.map(f).join(" | ")} |`);
  row("trials", (t) => String(t.trials));
  row("mean trial window, ms", (t) => String(Math.round(t.windowMs / Math.max(1, t.trials))));
  row("**harness share** (1 − Σ clients / Σ windows)", (t) => `**${pct(t.harnessShare)}**`);
  row("harness share, 1 KiB cells", (_t, i) => pct(small[i]?.harnessShare ?? null));
  row("Σ windows, s", (t) => (t.windowMs / 1000).toFixed(1));
  row("runs' wall time, s", (_t, i) => ((builds[i]?.wallMs ?? 0) / 1000).toFixed(1));
}

function parse() {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "1" },
      trials: { type: "string", default: "1" },
      baseline: { type: "string" },
    },
  });
  const baseline = values.baseline === undefined ? null : resolve(values.baseline);
  if (baseline !== null && !existsSync(join(baseline, "dist/scripts/cli.js")))
    throw new UsageError(`--baseline must be a built checkout (no dist/scripts/cli.js in ${JSON.stringify(baseline)})`);
  return {
    rounds: intFlag("rounds", values.rounds, 1, 20),
    trials: intFlag("trials", values.trials, 1, 20),
    baseline,
  };
}

async function main(): Promise<void> {
  const { rounds, trials, baseline } = parse();
  const builds: Build[] = [{ name: "this tree", root: HERE, rows: [], wallMs: 0 }];
  if (baseline) builds.unshift({ name: `baseline (${baseline})`, root: baseline, rows: [], wallMs: 0 });
  const load0 = loadavg()[0] ?? 0;
  const started = new Date().toISOString();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < builds.length; k++) {
      const b = builds[(k + round) % builds.length] as Build;
      console.error(`round ${round + 1}/${rounds}: ${b.name} (load ${(loadavg()[0] ?? 0).toFixed(2)})`);
      const run = await runOnce(b.root, trials);
      b.rows.push(...run.rows);
      b.wallMs += run.wallMs;
    }
  }
  printTable(builds);
  const load1 = loadavg()[0] ?? 0;
  console.log(`\nstarted ${started}; load average ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end`);
}

main().catch((e) => {
  console.error(`memory-cost: ${(e as Error).message}`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
});
