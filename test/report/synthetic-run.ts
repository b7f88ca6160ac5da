// Test aid: builds a realistic, synthetic run directory (results.json + samples/*.jsonl) shaped like
// the bench runner's output, with seeded noise, so the reports can be rendered and checked without
// measuring. Figures imitate the reference study's shape: legacy 2/2/3/4 chunks, batched 1/1/1/1.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomFloats } from "../../common/prng.js";
import {
  type LatencyCase,
  type LatencyRow,
  type MemoryMode,
  type MemoryRow,
  RESULTS_SCHEMA,
  type Results,
} from "../../scripts/results/schema.js";

export interface SyntheticOptions {
  trials?: number;
  seed?: number;
  /** Multiply every candidate figure by this (1 = no change); default: the batched profile. */
  candidateFactor?: number;
  /** Swap the roles (batched as baseline), as `--variants batched,legacy` would. */
  swapped?: boolean;
  /** The interleaved A/A control: rows of a second baseline copy "A2" under `aa`. */
  aa?: boolean;
  /** Make one latency trial of the candidate fail. */
  withFailure?: boolean;
  memoryTrials?: number;
  /** Multiply the candidate's completionMs in these cases only (on top of candidateFactor). */
  caseFactor?: Partial<Record<LatencyCase, number>>;
  /** Relative noise of every latency figure (default 0.04: uniform in ±4%). */
  latencyNoise?: number;
  /** Only the baseline: a single-target run. */
  single?: boolean;
  /** The guard recorded in the run's config (bench writes --ceiling/--guard there). */
  guard?: { ceiling: number; metrics: string[]; confidence?: boolean; allowMissing?: boolean };
}

const MIB = 1024 * 1024;
const CASES: LatencyCase[] = ["snapshot", "resume-none", "resume-one", "resume-many"];
const LEGACY_MS: Record<LatencyCase, number> = {
  snapshot: 268,
  "resume-none": 221,
  "resume-one": 331,
  "resume-many": 723,
  "thread-snapshot": 230,
  "thread-resume": 220,
};
const BATCHED_MS: Record<LatencyCase, number> = {
  snapshot: 187,
  "resume-none": 125,
  "resume-one": 120,
  "resume-many": 544,
  "thread-snapshot": 130,
  "thread-resume": 120,
};
const LEGACY_CHUNKS: Record<LatencyCase, number> = {
  snapshot: 2,
  "resume-none": 2,
  "resume-one": 3,
  "resume-many": 4,
  "thread-snapshot": 2,
  "thread-resume": 2,
};

export function syntheticResults(dir: string, options: SyntheticOptions = {}): Results {
  const trials = options.trials ?? 3;
  const memoryTrials = options.memoryTrials ?? 1;
  const random = randomFloats(options.seed ?? 1);
  const noise = (sd: number) => 1 + sd * (random() * 2 - 1);
  const names = options.swapped ? ["batched", "legacy"] : ["legacy", "batched"];
  if (options.single) names.pop();
  const latencyNoise = options.latencyNoise ?? 0.04;
  const factorOf = (variant: string) =>
    variant === "batched" && options.candidateFactor !== undefined ? options.candidateFactor : 1;
  const msOf = (variant: string, c: LatencyCase) =>
    options.candidateFactor !== undefined
      ? LEGACY_MS[c] * factorOf(variant)
      : variant === "legacy"
        ? LEGACY_MS[c]
        : BATCHED_MS[c];

  const latencyRows = (variants: string[], profile: (v: string) => string): LatencyRow[] => {
    const rows: LatencyRow[] = [];
    for (const c of CASES) {
      for (let t = 1; t <= trials; t++) {
        for (const v of variants) {
          const p = profile(v);
          const failed = options.withFailure === true && v === names[1] && c === "resume-one" && t === 1;
          const caseFactor = v === names[1] ? (options.caseFactor?.[c] ?? 1) : 1;
          rows.push({
            case: c,
            variant: v,
            trial: t,
            ok: !failed,
            completionMs: failed ? null : msOf(p, c) * caseFactor * noise(latencyNoise),
            firstChunkMs: failed ? null : 20 * noise(0.1),
            chunks: failed ? 0 : p === "legacy" ? LEGACY_CHUNKS[c] : 1,
            values: p === "legacy" ? LEGACY_CHUNKS[c] + 1 : c === "snapshot" ? 1001 : 2,
            bytes: 180_000 * noise(0.01),
            probeMs: failed ? null : 3 * noise(0.3),
            error: failed ? "socket closed before completion (code 1006)" : null,
          });
        }
      }
    }
    return rows;
  };

  mkdirSync(join(dir, "samples"), { recursive: true });
  const memoryRows = (variants: string[], profile: (v: string) => string, prefix: string): MemoryRow[] => {
    const rows: MemoryRow[] = [];
    for (const scriptBytes of [1024, 8192]) {
      for (const clients of [1, 4]) {
        for (const mode of ["memory", "snapshot"] as MemoryMode[]) {
          for (let t = 1; t <= memoryTrials; t++) {
            for (const v of variants) {
              const p = profile(v);
              const f = factorOf(p) * (p === "batched" && options.candidateFactor === undefined ? 0.85 : 1);
              const base = 38 * MIB;
              const peakHeap = (base + clients * (scriptBytes / 1024) * 2.1 * MIB * f) * noise(0.02);
              const rss = 120 * MIB + (peakHeap - base) * 1.6;
              const file = `samples/${prefix}memory-s${scriptBytes}-c${clients}-${mode}-${v}-t${t}.jsonl`;
              writeFileSync(join(dir, file), sampleText(random, base, peakHeap, rss, p === "legacy" ? 900 : 700));
              rows.push({
                scriptBytes,
                clients,
                mode,
                variant: v,
                trial: t,
                ok: true,
                baselineHeapBytes: base,
                peakHeapBytes: Math.round(peakHeap),
                peakRssBytes: Math.round(rss),
                hwmRssBytes: Math.round(rss * 1.01),
                postGcHeapBytes: Math.round(base + 0.4 * MIB * noise(0.2)),
                retainedHeapBytes: Math.round(0.4 * MIB * noise(0.2)),
                bytesThroughCompletion: Math.round(
                  clients * (scriptBytes + 75) * 1000 * (mode === "memory" ? 1.05 : 1),
                ),
                completionMsMax: 600 * noise(0.05),
                probeMaxMs: 6 * noise(0.3),
                probeMedianMs: 3 * noise(0.3),
                sampleIntervalMs: { median: 10.1, p99: 12.9 * noise(0.05), max: 15 * noise(0.1) },
                samplesFile: file,
                error: null,
              });
            }
          }
        }
      }
    }
    return rows;
  };

  const results: Results = {
    schema: RESULTS_SCHEMA,
    run: {
      startedAt: "2026-11-30T03:00:00.000Z",
      finishedAt: "2026-11-30T03:04:10.000Z",
      node: "v20.20.0",
      cpuModel: "Synthetic CPU @ 2.20GHz",
      cores: 2,
      loadAverage: [0.52, 0.61, 0.7],
      gitCommit: "0123456789abcdef0123456789abcdef01234567",
      config: {
        trials,
        memoryTrials,
        projects: 1000,
        events: 1000,
        ackDelayMs: 100,
        probeTag: "server.getConfig",
        ...(options.guard
          ? {
              ceiling: options.guard.ceiling,
              guard: options.guard.metrics,
              guardConfidence: options.guard.confidence === true,
              allowMissing: options.guard.allowMissing === true,
            }
          : {}),
      },
    },
    variants: names.map((name, i) => ({
      name,
      kind: "bundled" as const,
      command: `node dist/server-under-test/main.js --delivery ${name}`,
      role: i === 0 ? ("baseline" as const) : ("candidate" as const),
    })),
    latency: latencyRows(names, (v) => v),
    memory: memoryRows(names, (v) => v, ""),
  };
  if (options.aa) {
    const base = names[0] as string;
    // Interleaved A/A: only the second copy's rows; its partner is the baseline's own rows.
    results.aa = {
      latency: latencyRows(["A2"], () => base),
      memory: memoryRows(["A2"], () => base, ""),
    };
  }
  writeFileSync(join(dir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

/** A default-shaped run: 8 latency rounds, 3 per memory cell, the acknowledged timer, a recorded command. */
export function defaultRun(dir: string, options: SyntheticOptions = {}): Results {
  const r = syntheticResults(dir, { trials: 8, memoryTrials: 3, ...options });
  for (const row of r.latency) if (row.completionMs !== null) row.acknowledgedMs = row.completionMs + 100;
  r.run.command = "catchup-bench bench";
  r.run.harnessVersion = "0.1.0";
  r.run.config = { ...r.run.config, holdMs: 100, sampleIntervalMs: 10 };
  return r;
}

/** More memory cells (clients 1..n in every size and mode), for the comment-size budget. */
export function withClients(r: Results, n: number): Results {
  const template = r.memory.filter((m) => m.clients === 1);
  const memory = [];
  for (let clients = 1; clients <= n; clients++) memory.push(...template.map((m) => ({ ...m, clients })));
  return { ...r, memory };
}

/** A 10 ms timeline: baseline, rise to the peak through completion, hold, close, GC. */
function sampleText(random: () => number, base: number, peakHeap: number, rss: number, completionAt: number): string {
  const lines: string[] = [];
  const phase = (t: number, p: string, heapUsed?: number) =>
    lines.push(JSON.stringify(heapUsed === undefined ? { t, phase: p } : { t, phase: p, heapUsed }));
  phase(0, "gc", base);
  phase(50, "connect");
  for (let t = 0; t <= completionAt + 400; t += 10) {
    if (t === 80) phase(t + 0.5, "first-chunk");
    if (t === completionAt) phase(t + 0.5, "completion");
    if (t === completionAt + 100) phase(t + 0.5, "hold-end");
    if (t === completionAt + 110) phase(t + 0.5, "close");
    const rise = t < 50 ? 0 : t < completionAt ? (t - 50) / (completionAt - 50) : t < completionAt + 150 ? 1 : 0.5;
    const heap = base + (peakHeap - base) * rise * (0.97 + 0.03 * random());
    lines.push(
      JSON.stringify({
        t: t + random(),
        rss: Math.round(rss * (0.8 + 0.2 * rise)),
        heapUsed: Math.round(heap),
        heapTotal: Math.round(heap * 1.3),
      }),
    );
  }
  phase(completionAt + 390, "gc", base + 0.4 * MIB);
  return `${lines.join("\n")}\n`;
}
