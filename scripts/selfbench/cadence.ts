// `npm run bench:cadence`: the sampler's cadence under the default memory cells. Runs `bench
// --no-latency --memory-sequential 0` (the default cells' planned trials, A/A included) and prints,
// per row, both lanes' achieved interval (p99 and max) and the clients' loop lag, then the worst row
// against the goal (RSS lane p99 <= 12 ms and max <= 20 ms in every row at the default 10 ms).
// --results DIR prints the table of a run already made instead.
// Usage: node dist/scripts/selfbench/cadence.js [--results DIR] [-- extra bench flags]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { memoryTrialId } from "../bench/rounds/plan.js";
import type { MemoryRow, Results } from "../results/schema.js";
import { UsageError } from "../util/usage.js";
import { runBenchChild } from "./bench-child.js";

const HERE = fileURLToPath(new URL("../../../", import.meta.url));
/** The goal at the default 10 ms RSS interval (docs/sampler.md). */
export const CADENCE_GOAL = { p99: 12, max: 20 } as const;

const ms = (x: number | null | undefined) => (x === null || x === undefined ? "–" : x.toFixed(1));

/** The worst RSS-lane p99 and max over rows, and the rows that miss the goal. */
export function cadenceVerdict(rows: readonly MemoryRow[]): { p99: number; max: number; missed: MemoryRow[] } {
  let p99 = 0;
  let max = 0;
  const missed: MemoryRow[] = [];
  for (const r of rows) {
    const s = r.sampleIntervalMs;
    if (!s) continue;
    p99 = Math.max(p99, s.p99);
    max = Math.max(max, s.max);
    if (s.p99 > CADENCE_GOAL.p99 || s.max > CADENCE_GOAL.max) missed.push(r);
  }
  return { p99, max, missed };
}

function printTable(results: Results): void {
  // Every memory trial the run sampled: the A/A copy's too.
  const all = [...results.memory, ...(results.aa?.memory ?? [])];
  const rows = all.filter((r) => r.ok);
  console.log(
    "| trial | RSS lane p99 / max, ms | heap lane p99 / max, ms | longest heap gap, ms | client loop lag p99 / max, ms |",
  );
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) {
    const s = r.sampleIntervalMs;
    const h = r.heapIntervalMs;
    const lag = r.clientLoopLagMs;
    console.log(
      `| ${memoryTrialId({ ...r, kind: "memory" })} | ${ms(s?.p99)} / ${ms(s?.max)} | ${ms(h?.p99)} / ${ms(h?.max)} | ${ms(r.heapGapMaxMs)} | ${ms(lag?.p99)} / ${ms(lag?.max)} |`,
    );
  }
  const v = cadenceVerdict(rows);
  const heapP99 = rows.map((r) => r.heapIntervalMs?.p99 ?? 0).sort((a, b) => a - b);
  const failed = all.length - rows.length;
  // The machine's CPU the trials did not use themselves (other jobs): how quiet the run was.
  let busy = 0;
  let own = 0;
  let total = 0;
  for (const r of rows) {
    busy += r.load?.busyTicks ?? 0;
    own += r.load?.ownTicks ?? 0;
    total += r.load?.totalTicks ?? 0;
  }
  const others =
    total > 0
      ? `; other processes used ${((100 * (busy - own)) / total).toFixed(0)}% of the machine's CPU during the trials`
      : "";
  console.log(
    `\n${rows.length} rows${failed > 0 ? ` (${failed} failed, not counted)` : ""}; RSS lane worst p99 ${ms(v.p99)} ms, worst max ${ms(v.max)} ms: goal p99 <= ${CADENCE_GOAL.p99}, max <= ${CADENCE_GOAL.max} ${v.missed.length === 0 ? "met in every row" : `NOT met in ${v.missed.length} rows`}; heap lane p99 ${ms(heapP99[0])}–${ms(heapP99.at(-1))} ms over rows${others}`,
  );
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { results: { type: "string" } }, allowPositionals: true });
  if (values.results !== undefined) {
    let results: Results;
    try {
      results = JSON.parse(readFileSync(join(values.results, "results.json"), "utf8")) as Results;
    } catch (e) {
      throw new UsageError(`--results ${JSON.stringify(values.results)}: ${(e as Error).message}`);
    }
    return printTable(results);
  }
  const load0 = loadavg()[0] ?? 0;
  const started = new Date().toISOString();
  const { results, wallMs } = await runBenchChild(HERE, ["--no-latency", "--memory-sequential", "0", ...positionals]);
  printTable(results);
  console.log(
    `started ${started}, ${(wallMs / 1000).toFixed(0)} s; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end`,
  );
}

main().catch((e) => {
  console.error(`bench:cadence: ${(e as Error).message}`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
});
