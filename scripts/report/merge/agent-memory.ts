// The server's memory beside a distributed k6 run: a sampling agent's file (`catchup-bench sample`)
// read into a timeline, the runners' wall-clock phase marks placed on it, and the figures the merged
// report shows: peak heap, peak RSS, VmHWM, post-GC heap, CPU, and the peaks within each window
// between the run's phase marks. Everything is on the agent's clock (ms since its start); a runner's
// marks move onto it through their common wall clock, shifted by --clock-offset-ms. Pure.
import type { PhaseMark } from "../../../scenarios/lib/phase-marks.js";
import { maxValue, quantile } from "../../util/stats.js";
import { MergeInputError, type NamedSummary } from "./merged-report.js";

/** The wall clocks of different hosts are taken to agree this closely (NTP on a LAN); not measured. */
export const ASSUMED_SKEW_MS = 10;

export interface AgentTimeline {
  source: string;
  pid: number | null;
  host: string | null;
  heap: boolean;
  /** wall - t on the agent's host: epoch ms of its t = 0. */
  wallAtZero: number;
  rss: Array<[t: number, bytes: number]>;
  heapUsed: Array<[t: number, bytes: number]>;
  gaps: Array<[t: number, ms: number]>;
  gc: Array<{ t: number; heapUsed: number | null; reason: string }>;
  marks: Array<{ t: number; reason: string }>;
  proc: Array<{ t: number; hwm: number | null; cpuMs: number | null }>;
  /** The end line's reason, or null when the agent did not end cleanly (e.g. SIGKILL). */
  endReason: string | null;
  /** VmHWM read as the agent ended (its end line), or null. */
  endHwm: number | null;
  /** Lines that did not parse (a torn last line after a SIGKILL) or held a value that is no reading. */
  badLines: number;
}

/** Reads an agent's samples file (JSONL). Throws a MergeInputError when it is not one. */
export function parseAgentSamples(source: string, text: string): AgentTimeline {
  const out: AgentTimeline = {
    source,
    pid: null,
    host: null,
    heap: false,
    wallAtZero: Number.NaN,
    rss: [],
    heapUsed: [],
    gaps: [],
    gc: [],
    marks: [],
    proc: [],
    endReason: null,
    endHwm: null,
    badLines: 0,
  };
  let header = false;
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let l: Record<string, unknown>;
    try {
      l = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      out.badLines++;
      continue;
    }
    if (!isSampleLine(l)) {
      out.badLines++;
      continue;
    }
    const t = l.t as number;
    if (Number.isNaN(out.wallAtZero) && typeof l.wall === "number") out.wallAtZero = l.wall - t;
    if (typeof l.rss === "number") out.rss.push([t, l.rss]);
    else if (typeof l.heapUsed === "number" && typeof l.heapTotal === "number") out.heapUsed.push([t, l.heapUsed]);
    else if (typeof l.heapGapMs === "number") out.gaps.push([t, l.heapGapMs]);
    else if ("hwm" in l) out.proc.push({ t, hwm: num(l.hwm), cpuMs: num(l.cpuMs) });
    else if (l.phase === "agent") {
      header = true;
      out.pid = num(l.pid);
      out.host = typeof l.host === "string" ? l.host : null;
      out.heap = l.heap === true;
    } else if (l.phase === "gc") out.gc.push({ t, heapUsed: num(l.heapUsed), reason: String(l.reason ?? "") });
    else if (l.phase === "mark") out.marks.push({ t, reason: String(l.reason ?? "") });
    else if (l.phase === "end") {
      out.endReason = String(l.reason ?? "");
      out.endHwm = num(l.hwmRssBytes);
    }
  }
  if (!header || Number.isNaN(out.wallAtZero)) {
    throw new MergeInputError(
      `--samples ${source} is not a samples file of \`catchup-bench sample\` (no agent line with wall-clock stamps)`,
    );
  }
  return out;
}

/** Bytes, ms and pids a samples file can hold: finite, not negative, at most this (a hand edit's 1e308 is no reading). */
const MAX_VALUE = 2 ** 53;
/** Epoch ms a wall stamp can hold (JavaScript's last date). */
const MAX_WALL = 8.64e15;

const inRange = (v: unknown, max = MAX_VALUE): boolean =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= max;

/** The numeric fields of a samples line that the report reads; each absent, or in range. */
const NUMERIC_FIELDS = ["rss", "heapUsed", "heapTotal", "heapGapMs", "hwm", "cpuMs", "hwmRssBytes", "pid"] as const;

/**
 * Pure: a line the report can place: a t and a wall stamp (when given) in range, and every reading
 * it holds a real one. Anything else (Infinity from 1e400, a negative RSS) counts as a bad line.
 */
function isSampleLine(l: unknown): l is Record<string, unknown> {
  if (typeof l !== "object" || l === null || Array.isArray(l)) return false;
  const o = l as Record<string, unknown>;
  if (!inRange(o.t) || (o.wall !== undefined && !inRange(o.wall, MAX_WALL))) return false;
  return NUMERIC_FIELDS.every((k) => o[k] === undefined || o[k] === null || inRange(o[k]));
}

function num(v: unknown): number | null {
  return inRange(v) ? (v as number) : null;
}

export interface MemoryFigures {
  peakHeapBytes: number | null;
  peakRssBytes: number | null;
  hwmRssBytes: number | null;
  /** The heap after the last forced GC that answered (--gc-at-end, or the last SIGUSR2). */
  postGcHeapBytes: number | null;
  /** CPU time the server used between the first and the last CPU line (ms). */
  cpuMs: number | null;
  durationMs: number;
  rssSamples: number;
  heapSamples: number;
  /** Achieved RSS interval (ms): median, p99, max. */
  rssInterval: { median: number; p99: number; max: number } | null;
  heapGaps: number;
}

export function memoryFigures(a: AgentTimeline): MemoryFigures {
  const rss = a.rss.map((s) => s[1]);
  const heap = a.heapUsed.map((s) => s[1]);
  const hwms = [...a.proc.flatMap((p) => (p.hwm === null ? [] : [p.hwm])), ...(a.endHwm === null ? [] : [a.endHwm])];
  const cpus = a.proc.flatMap((p) => (p.cpuMs === null ? [] : [p.cpuMs]));
  const gcs = a.gc.flatMap((g) => (g.heapUsed === null ? [] : [g.heapUsed]));
  const ts = a.rss.map((s) => s[0]);
  const steps = ts.slice(1).map((t, i) => t - (ts[i] as number));
  return {
    peakHeapBytes: heap.length ? maxValue(heap) : null,
    peakRssBytes: rss.length ? maxValue(rss) : null,
    hwmRssBytes: hwms.length ? maxValue(hwms) : null,
    postGcHeapBytes: gcs.at(-1) ?? null,
    cpuMs: cpus.length >= 2 ? (cpus.at(-1) as number) - (cpus[0] as number) : null,
    durationMs: ts.length >= 2 ? (ts.at(-1) as number) - (ts[0] as number) : 0,
    rssSamples: rss.length,
    heapSamples: heap.length,
    rssInterval: steps.length
      ? { median: quantile(steps, 0.5), p99: quantile(steps, 0.99), max: maxValue(steps) }
      : null,
    heapGaps: a.gaps.length,
  };
}

/** A phase of the run on the agent's clock: when the first and the last session reached it. */
export interface PhaseOnTimeline {
  phase: string;
  first: number;
  last: number;
  count: number;
}

/** One runner's marks (or the run's, merged over runners) moved onto an agent's clock. */
export function phasesOnTimeline(
  phases: Record<string, PhaseMark | null> | undefined,
  wallAtZero: number,
  offsetMs: number,
): PhaseOnTimeline[] {
  const out: PhaseOnTimeline[] = [];
  for (const [phase, m] of Object.entries(phases ?? {})) {
    if (!m) continue;
    out.push({ phase, first: m.first + offsetMs - wallAtZero, last: m.last + offsetMs - wallAtZero, count: m.count });
  }
  return out;
}

/** The run's marks: each phase's earliest first and latest last over every runner, sessions summed. */
export function runPhases(runners: readonly NamedSummary[]): Record<string, PhaseMark | null> {
  const out: Record<string, PhaseMark | null> = {};
  for (const { summary } of runners) {
    for (const [phase, m] of Object.entries(summary.phases ?? {})) {
      const had = out[phase] ?? null;
      if (!m) {
        out[phase] ??= null;
        continue;
      }
      out[phase] = had
        ? { first: Math.min(had.first, m.first), last: Math.max(had.last, m.last), count: had.count + m.count }
        : { ...m };
    }
  }
  return out;
}

export interface PhaseWindow {
  label: string;
  from: number;
  to: number;
  peakHeapBytes: number | null;
  peakRssBytes: number | null;
  rssSamples: number;
}

/**
 * The windows between the run's marks, as the bench marks a cell: before the first connect; from it
 * to the first chunk; to the last completion; to the last hold end; to the last close; after it.
 * A window's peak is over the samples with from <= t < to (the last window includes its end).
 */
export function phaseWindows(a: AgentTimeline, phases: readonly PhaseOnTimeline[]): PhaseWindow[] {
  const at = (phase: string, which: "first" | "last") => phases.find((p) => p.phase === phase)?.[which];
  const start = Math.min(a.rss[0]?.[0] ?? 0, a.heapUsed[0]?.[0] ?? Number.POSITIVE_INFINITY);
  const end = Math.max(a.rss.at(-1)?.[0] ?? 0, a.heapUsed.at(-1)?.[0] ?? 0);
  const bounds: Array<[string, number | undefined]> = [
    ["the start", start],
    ["the first connect", at("connect", "first")],
    ["the first chunk", at("first-chunk", "first")],
    ["the last completion", at("completion", "last")],
    ["the last hold end", at("hold-end", "last")],
    ["the last close", at("close", "last")],
  ];
  // A phase no session reached, or a mark out of order (failed sessions), is no boundary: its stretch
  // stays in the window before, whose label names the boundary it does end at.
  const cuts: Array<[string, number]> = [];
  for (const [name, t] of bounds) {
    if (t === undefined) continue;
    const prev = cuts.at(-1);
    if (prev && t < prev[1]) continue;
    cuts.push([name, t]);
  }
  return cuts.map(([name, from], i) => {
    const next = cuts[i + 1];
    const to = next ? next[1] : end;
    const label =
      i === 0 ? (next ? `before ${next[0]}` : "the whole run") : next ? `${name} → ${next[0]}` : `after ${name}`;
    const inside = (t: number) => t >= from && (next ? t < to : t <= to);
    const rss = a.rss.filter((s) => inside(s[0])).map((s) => s[1]);
    const heap = a.heapUsed.filter((s) => inside(s[0])).map((s) => s[1]);
    return {
      label,
      from,
      to,
      peakHeapBytes: heap.length ? maxValue(heap) : null,
      peakRssBytes: rss.length ? maxValue(rss) : null,
      rssSamples: rss.length,
    };
  });
}

/** One agent's part of the merged report. */
export interface AgentMemory {
  source: string;
  host: string | null;
  pid: number | null;
  heap: boolean;
  endReason: string | null;
  badLines: number;
  figures: MemoryFigures;
  /** The run's marks on this agent's clock. */
  phases: PhaseOnTimeline[];
  /** Each runner's marks on this agent's clock. */
  runnerPhases: Array<{ source: string; phases: PhaseOnTimeline[] }>;
  windows: PhaseWindow[];
  /** Forced GCs and SIGUSR2 marks, for the timeline. */
  gc: AgentTimeline["gc"];
  marks: AgentTimeline["marks"];
}

export interface MergedMemory {
  clockOffsetMs: number;
  assumedSkewMs: number;
  agents: AgentMemory[];
  notes: string[];
}

/** The memory part of a merged report from the agents' timelines and the runners' summaries. */
export function mergeMemory(
  agents: readonly AgentTimeline[],
  runners: readonly NamedSummary[],
  clockOffsetMs: number,
): MergedMemory {
  const run = runPhases(runners);
  const notes = [
    `Runner phase marks are wall-clock times of the runners' hosts, placed on each agent's clock (seconds since it started) through the agent's own wall-clock stamps, shifted by --clock-offset-ms ${clockOffsetMs}. The hosts' clocks are assumed to agree within ±${ASSUMED_SKEW_MS} ms (NTP; not measured here): a sample within that distance of a window's edge may belong to the window beside it.`,
  ];
  if (runners.every((r) => !r.summary.phases)) {
    notes.push(
      "No runner summary carries phase marks (a script other than scaleout.js or storm.js): only the whole timeline's figures are given.",
    );
  }
  const out = agents.map((a): AgentMemory => {
    const phases = phasesOnTimeline(run, a.wallAtZero, clockOffsetMs);
    if (a.badLines > 0)
      notes.push(
        `${a.source}: ${a.badLines} line(s) were not samples (a write cut off when the agent was killed, or a value that is no reading: not a number, negative or out of range) and were left out.`,
      );
    if (a.endReason === null)
      notes.push(`${a.source}: the agent did not end cleanly (no end line): its figures cover the samples it wrote.`);
    if (!a.heap) notes.push(`${a.source}: RSS only (the server had no inspector): no heap figures.`);
    return {
      source: a.source,
      host: a.host,
      pid: a.pid,
      heap: a.heap,
      endReason: a.endReason,
      badLines: a.badLines,
      figures: memoryFigures(a),
      phases,
      runnerPhases: runners.map((r) => ({
        source: r.source,
        phases: phasesOnTimeline(r.summary.phases, a.wallAtZero, clockOffsetMs),
      })),
      windows: phaseWindows(a, phases),
      gc: a.gc,
      marks: a.marks,
    };
  });
  return { clockOffsetMs, assumedSkewMs: ASSUMED_SKEW_MS, agents: out, notes };
}
