// A results.json as the history store keeps it (pure): the run's identity (a digest of what it
// measured, so adding it twice finds it), its testbed, the commits its variants are, one result per
// metric and cell (the verdict bench kept, or the one judged now for older runs) and the raw trials.
import { createHash } from "node:crypto";
import { minEffectFromConfig } from "../results/metric-floor.js";
import { METRICS, type Metric, practicalTolerance, unitOf } from "../results/metric-names.js";
import type { Results } from "../results/schema.js";
import type { CellVerdict } from "../results/verdict-record.js";
import type { CommitFacts, StoredResult, StoredRun, StoredSample } from "../store/runs.js";
import type { RunKind } from "../store/tables.js";
import { bootstrapMedianCI, median, seedFromString } from "../util/stats.js";
import { guardFromConfig, memoryCellId, verdictsOf } from "../verdicts/cells.js";
import { isLatencyMetric, rolesOf } from "../verdicts/metrics.js";
import { outcomeOf } from "../verdicts/pair-outcome.js";

/** JSON with object keys sorted: the same content gives the same text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A run's identity: what it measured, where and when (not where its file lies or how it was rendered). */
export function runUid(results: Results): string {
  const { run, variants, latency, memory } = results;
  return sha256(
    canonicalJson({
      startedAt: run.startedAt,
      node: run.node,
      cpuModel: run.cpuModel,
      cores: run.cores,
      variants: variants.map((v) => ({ name: v.name, commit: v.commit ?? null })),
      latency,
      memory,
    }),
  );
}

/** Config fields that name this run's places or variants rather than what was measured. */
const NOT_MEASURED = [
  "out",
  "targets",
  "refs",
  "configFile",
  "token",
  "headers",
  "fixture",
  "fixturesDir",
  "memoryFixtures",
];

/** Digest of the measured configuration: two runs with the same digest measured the same thing. */
export function configDigest(config: Record<string, unknown>): string {
  const kept = Object.fromEntries(Object.entries(config).filter(([k]) => !NOT_MEASURED.includes(k)));
  const targets = Array.isArray(config.targets)
    ? (config.targets as { kind?: string; command?: string; delivery?: string }[]).map(
        (t) => t.command ?? t.delivery ?? t.kind ?? null,
      )
    : null;
  return sha256(canonicalJson({ ...kept, targets }));
}

/** The ok figures of one variant in one cell of a metric, by trial. */
function cellFigures(
  results: Results,
  metric: Metric,
  cell: string,
  variant: string,
): { trial: number; value: number }[] {
  const rows: { ok: boolean; variant: string; trial: number }[] = isLatencyMetric(metric)
    ? results.latency.filter((r) => r.case === cell)
    : results.memory.filter((r) => memoryCellId(r) === cell);
  return rows
    .filter((r) => r.ok && r.variant === variant)
    .map((r) => ({ trial: r.trial, value: (r as unknown as Record<string, unknown>)[metric] }))
    .filter((f): f is { trial: number; value: number } => typeof f.value === "number" && Number.isFinite(f.value));
}

/** The widest |ratio - 1| inside the metric's practical floor under the run's --min-effect (undefined: not judged). */
function toleranceOf(metric: Metric, baseline: number | null, results: Results): number | undefined {
  return practicalTolerance(metric, baseline, minEffectFromConfig(results.run.config ?? {})) ?? undefined;
}

function resultOf(results: Results, v: CellVerdict, roles: { baseline: string; candidate: string }): StoredResult {
  const head = cellFigures(results, v.metric, v.cell, roles.candidate).map((f) => f.value);
  const base = cellFigures(results, v.metric, v.cell, roles.baseline).map((f) => f.value);
  const ci = head.length > 1 ? bootstrapMedianCI(head, { seed: seedFromString(`${v.metric}:${v.cell}:head`) }) : null;
  return {
    matrix: isLatencyMetric(v.metric) ? "latency" : "memory",
    cell: v.cell,
    metric: v.metric,
    unit: unitOf(v.metric),
    pairs: v.pairs,
    plannedPairs: v.plannedPairs,
    baseEstimate: base.length > 0 ? median(base) : null,
    estimate: head.length > 0 ? median(head) : null,
    estimateLow: ci?.low ?? (head.length === 1 ? (head[0] as number) : null),
    estimateHigh: ci?.high ?? (head.length === 1 ? (head[0] as number) : null),
    ratio: v.median,
    ratioLow: v.ciLow,
    ratioHigh: v.ciHigh,
    aaLow: v.aaLow,
    aaHigh: v.aaHigh,
    verdict: v.verdict,
    outcome: outcomeOf(v, toleranceOf(v.metric, base.length > 0 ? median(base) : null, results)),
    reason: v.reason,
  };
}

export interface RunRecordOptions {
  kind: RunKind;
  branch: string | null;
  /** Where the results came from (a path), kept with the run. */
  source: string | null;
  /** What the store knows of a commit (parent, time, order), when the repository is at hand. */
  commitFacts?: (sha: string) => CommitFacts | null;
  /** The configuration digest a record asked for (run-tag.ts); else the digest of the run's config. */
  configDigest?: string;
}

/** Why a run cannot stand in a series, or null. */
function exclusion(results: Results, roles: { baseline: string; candidate: string } | null): string | null {
  if (!roles) return "fewer than two variants: nothing paired";
  const dirty = results.variants.find((v) => v.dirty === true);
  if (dirty) return `variant ${dirty.name} is a working tree with uncommitted changes`;
  if (results.variants.some((v) => v.swap)) return "a swapped baseline is not a commit";
  if ((results.targetCrashes?.length ?? 0) > 0) return "a target crashed during the run";
  return null;
}

/** The store's record of a run. Pure: the commit facts come through `options.commitFacts`. */
export function runRecord(results: Results, options: RunRecordOptions): StoredRun {
  const roles = rolesOf(results);
  const variant = (name: string | undefined) => results.variants.find((v) => v.name === name);
  const baseSha = variant(roles?.baseline)?.commit ?? null;
  const headSha = variant(roles?.candidate)?.commit ?? null;
  const config = results.run.config ?? {};
  const stored = results.verdicts?.filter((v): v is CellVerdict => (METRICS as readonly string[]).includes(v.metric));
  const verdicts =
    stored && stored.length > 0 ? stored : verdictsOf(results, guardFromConfig(config), minEffectFromConfig(config));
  const samples: StoredSample[] = [];
  if (roles) {
    for (const v of verdicts) {
      for (const [role, name] of [
        ["base", roles.baseline],
        ["head", roles.candidate],
      ] as const) {
        for (const f of cellFigures(results, v.metric, v.cell, name)) {
          samples.push({
            matrix: isLatencyMetric(v.metric) ? "latency" : "memory",
            cell: v.cell,
            metric: v.metric,
            role,
            trial: f.trial,
            value: f.value,
          });
        }
      }
    }
  }
  const shas = [...new Set([baseSha, headSha].filter((s): s is string => s !== null))];
  return {
    uid: runUid(results),
    kind: options.kind,
    branch: options.branch,
    baseSha,
    headSha,
    anchorSha: baseSha,
    configDigest: options.configDigest ?? configDigest(config),
    startedAt: results.run.startedAt,
    finishedAt: results.run.finishedAt,
    source: options.source,
    interrupted: results.run.interrupted === true,
    excluded: exclusion(results, roles),
    testbed: {
      cpuModel: results.run.cpuModel,
      cores: results.run.cores,
      memoryBytes: results.run.memoryBytes ?? null,
      node: results.run.node,
      kernel: results.run.kernel ?? null,
    },
    commits: shas.map(
      (sha) => options.commitFacts?.(sha) ?? { sha, parent: null, time: null, ord: null, subject: null },
    ),
    results: roles ? verdicts.map((v) => resultOf(results, v, roles)) : [],
    samples,
  };
}
