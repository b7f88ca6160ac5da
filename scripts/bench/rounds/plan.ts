// The run plan: which trial runs when. Pure. Variants interleave (A B A B ...) and the starting
// variant rotates each repetition, so slow drift of the machine falls on every variant alike.
import { afterSequenceFor as scenarioAfterSequenceFor } from "../../../scenarios/lib/env.js";
import type { LatencyCase, MemoryMode } from "../../results/schema.js";

export interface LatencyTrial {
  kind: "latency";
  case: LatencyCase;
  variant: string;
  /** 1-based repetition number. */
  trial: number;
}

export interface MemoryCell {
  scriptBytes: number;
  clients: number;
  mode: MemoryMode;
}

export interface MemoryTrial extends MemoryCell {
  kind: "memory";
  variant: string;
  trial: number;
}

/** The variants in the order repetition `rep` (0-based) runs them: rotated by rep. */
export function rotation<T>(variants: readonly T[], rep: number): T[] {
  const n = variants.length;
  if (n === 0) return [];
  const start = rep % n;
  return [...variants.slice(start), ...variants.slice(0, start)];
}

/** One round (1-based) of latency trials: each case, then every variant once, rotated by the round. */
export function latencyRound(
  cases: readonly LatencyCase[],
  variants: readonly string[],
  round: number,
): LatencyTrial[] {
  return cases.flatMap((c) =>
    rotation(variants, round - 1).map((variant): LatencyTrial => ({ kind: "latency", case: c, variant, trial: round })),
  );
}

/** Latency trials: round (repetition) outermost, then case, then the rotated variants. */
export function latencyPlan(
  cases: readonly LatencyCase[],
  variants: readonly string[],
  trials: number,
): LatencyTrial[] {
  const plan: LatencyTrial[] = [];
  for (let round = 1; round <= trials; round++) plan.push(...latencyRound(cases, variants, round));
  return plan;
}

/** Memory cells in a stable order: script size, then clients, then mode. */
export function memoryCells(
  scriptBytes: readonly number[],
  clients: readonly number[],
  modes: readonly MemoryMode[],
): MemoryCell[] {
  return scriptBytes.flatMap((s) =>
    clients.flatMap((c) => modes.map((mode) => ({ scriptBytes: s, clients: c, mode }))),
  );
}

/** One round (1-based) of memory trials: each cell, then every variant once, rotated by the round. */
export function memoryRound(cells: readonly MemoryCell[], variants: readonly string[], round: number): MemoryTrial[] {
  return cells.flatMap((cell) =>
    rotation(variants, round - 1).map((variant): MemoryTrial => ({ kind: "memory", ...cell, variant, trial: round })),
  );
}

/** A trial's kind for the weighted ETA: "latency", or "memory:8192x4/memory" (each cell's trials cost alike). */
export function trialKind(t: object): string {
  const m = t as Partial<MemoryCell>;
  return m.scriptBytes === undefined ? "latency" : `memory:${m.scriptBytes}x${m.clients}/${m.mode}`;
}

/** Memory trials: per cell, repetitions of the rotated variants; each trial gets a fresh server. */
export function memoryPlan(cells: readonly MemoryCell[], variants: readonly string[], trials: number): MemoryTrial[] {
  const plan: MemoryTrial[] = [];
  for (const cell of cells) {
    for (let rep = 0; rep < trials; rep++) {
      for (const variant of rotation(variants, rep)) plan.push({ kind: "memory", ...cell, variant, trial: rep + 1 });
    }
  }
  return plan;
}

/** A file-name-safe id of a memory trial, e.g. "memory-s1024-c4-snapshot-legacy-t1". */
export function memoryTrialId(t: MemoryTrial, prefix = ""): string {
  const safe = t.variant.replace(/[^A-Za-z0-9._-]/g, "_");
  return `${prefix}memory-s${t.scriptBytes}-c${t.clients}-${t.mode}-${safe}-t${t.trial}`;
}

/** The k6 scripts' name for each bench case (a memory cell resumes from the fixture's cursor). */
const SCENARIO_CASE = {
  snapshot: "snapshot",
  "resume-none": "none",
  "resume-one": "one",
  "resume-many": "many",
  memory: "many",
} as const;

/** A latency case of the thread subscription. */
export function isThreadCase(c: LatencyCase | MemoryMode): c is "thread-snapshot" | "thread-resume" {
  return c === "thread-snapshot" || c === "thread-resume";
}

/**
 * afterSequence for a latency case, from the fixture's cursor and latest sequence (a thread case:
 * the measured thread's cursor); null = snapshot.
 */
export function afterSequenceFor(
  c: LatencyCase | MemoryMode,
  meta: { cursorSequence: number; latestSequence: number; threadCursorSequence?: number },
): number | null {
  if (c === "thread-snapshot") return null;
  if (c === "thread-resume") {
    if (meta.threadCursorSequence === undefined) throw new Error("thread-resume needs a fixture with threads");
    return meta.threadCursorSequence;
  }
  // One rule for the harness and the k6 scripts: scenarios/lib/env.js owns it.
  return scenarioAfterSequenceFor(SCENARIO_CASE[c], meta);
}
