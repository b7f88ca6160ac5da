// The metrics compared as paired ratios (candidate/baseline; lower is better for all of them), and how
// trials pair up: trial i of the baseline with trial i of the candidate in the same case or memory cell.

import { LATENCY_METRICS, type LatencyMetric, METRICS, type Metric } from "../results/metric-names.js";
import type { LatencyRow, MemoryRow, Results } from "../results/schema.js";
import { pairedRatios } from "../util/stats.js";

export function isLatencyMetric(m: string): m is LatencyMetric {
  return (LATENCY_METRICS as readonly string[]).includes(m);
}
export function isMetric(m: string): m is Metric {
  return (METRICS as readonly string[]).includes(m);
}

/** The identity of a memory cell, also used to order cells. */
export function cellKey(r: Pick<MemoryRow, "scriptBytes" | "clients" | "mode">): string {
  return `${r.scriptBytes}/${r.clients}/${r.mode}`;
}

export interface Roles {
  baseline: string;
  candidate: string;
}

/** Baseline and candidate names: the roles in results.variants, else the first two variants. */
export function rolesOf(results: Results): Roles | null {
  const v = results.variants;
  const baseline = v.find((x) => x.role === "baseline") ?? v[0];
  const candidate = v.find((x) => x.role === "candidate" && x.name !== baseline?.name) ?? v[1];
  if (!baseline || !candidate) return null;
  return { baseline: baseline.name, candidate: candidate.name };
}

function pairUp<R extends { variant: string; trial: number; ok: boolean }>(
  rows: readonly R[],
  roles: Roles,
  groupOf: (r: R) => string,
  value: (r: R) => number | null,
): number[] {
  const byKey = new Map<string, R>();
  for (const r of rows) if (r.ok) byKey.set(`${groupOf(r)}|${r.variant}|${r.trial}`, r);
  const keys = [...new Set(rows.map((r) => `${groupOf(r)}|${r.trial}`))].sort();
  const b: (number | null)[] = [];
  const c: (number | null)[] = [];
  for (const k of keys) {
    const [g, t] = k.split("|");
    const rb = byKey.get(`${g}|${roles.baseline}|${t}`);
    const rc = byKey.get(`${g}|${roles.candidate}|${t}`);
    if (!rb || !rc) continue;
    b.push(value(rb));
    c.push(value(rc));
  }
  return pairedRatios(b, c);
}

/** Paired ratios candidate/baseline of a metric over every case (latency) or cell (memory) and trial. */
export function metricRatios(
  metric: Metric,
  rows: { latency: readonly LatencyRow[]; memory: readonly MemoryRow[] },
  roles: Roles,
): number[] {
  if (isLatencyMetric(metric))
    return pairUp(
      rows.latency,
      roles,
      (r) => r.case,
      (r) => r[metric] ?? null,
    );
  return pairUp(rows.memory, roles, cellKey, (r) => r[metric]);
}

/** Paired ratios of a latency metric within one case. */
export function caseRatios(metric: LatencyMetric, rows: readonly LatencyRow[], roles: Roles, kase: string): number[] {
  return pairUp(
    rows.filter((r) => r.case === kase),
    roles,
    (r) => r.case,
    (r) => r[metric] ?? null,
  );
}
