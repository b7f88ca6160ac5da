// The time left in a run (pure), weighted by what each kind of trial has measured: a memory cell's
// trial (a fresh server, a fixture load, a forced GC) takes several times a latency trial, so a
// count of trials alone misleads by that factor at the latency -> memory switch. Each kind's mean
// duration once it has one; before that its prior scaled as its family's measured trials ran against
// theirs (a memory cell's prior grows with its catch-up), else the prior alone.
//
// Adaptive rounds (sequential memory rounds, auto-sampling) join the plan only as the verdicts ask
// for them, so the time left is a range: the planned trials and the rounds every cell runs before the
// rule's first look (a reserve's `expected`), up to those plus every reserve's most (its remaining
// trials, or its time budget plus the one round that may start just before the budget runs out,
// whichever is less). A reserve settles (leaves the range) when its rounds are done.

/**
 * Milliseconds a trial of each family takes before any was measured: the default run on a 2-core
 * machine (docs/measurements.md), a storm cell about 500 clients' worth. A memory cell's is MEMORY_PRIOR's.
 */
export const PRIOR_MS: Record<string, number> = { latency: 350, leak: 1_500, storm: 60_000 };

/**
 * A memory trial before any was measured: a fixed part (the baseline GC, the idle window, the post-GC
 * heap, the hold) and a part that grows with the catch-up its clients take (clients × script KiB).
 * Fitted to the default run's eight cells (1.2-4.5 s a trial): within 5% of each size's resume and
 * snapshot cells' mean.
 */
const MEMORY_PRIOR = { fixedMs: 1_250, perClientKiBMs: 90 } as const;

/** A kind's prior: a memory cell's from its clients and script size, else its family's. */
export function priorMs(kind: string): number {
  const cell = /^memory:(\d+)x(\d+)\//.exec(kind);
  if (cell) return MEMORY_PRIOR.fixedMs + (MEMORY_PRIOR.perClientKiBMs * Number(cell[1]) * Number(cell[2])) / 1024;
  return PRIOR_MS[family(kind)] ?? PRIOR_MS.latency ?? 1_000;
}

/**
 * A prior comes from another commit, and is scaled to this machine by a guess (machineScale): the
 * range takes it as 0.8x to 1.25x (1.56x wide).
 */
export const PRIOR_SPREAD = { low: 0.8, high: 1.25 } as const;

/** What the calibration measured: a fixed piece of work's CPU and wall time here, and the load. */
export interface Calibration {
  /** CPU time the work took here (ms). */
  cpuMs: number;
  /** Wall time it took (ms): more than cpuMs when other processes took turns on the CPU. */
  wallMs: number;
  /** CPU time the same work took on the machine the priors were measured on (ms). */
  referenceCpuMs: number;
  /** 1-minute load average and cores: the load over the last minute, not only the probe's moment. */
  load1: number;
  cores: number;
}

/**
 * How much longer than the priors a trial takes here: the machine's speed (CPU time of the same
 * work) times the square root of the slowdown its load causes (what the probe saw, or the load
 * average per core, the larger). A square root because a trial is partly waiting (timers, the hold,
 * sampling cadences), which the load does not stretch: the default run took 1.83x at load 10 on 2
 * cores, and a planned run 1.72x at load 5 to 10. The speed is read on a quiet machine only: on a
 * busy one the probe's CPU time grows with the sharing itself (2.1x at load 18), which the load
 * term already counts.
 */
export function machineScale(c: Calibration): number {
  const contention = Math.max(1, c.cpuMs > 0 ? c.wallMs / c.cpuMs : 1, c.load1 / Math.max(1, c.cores));
  const speed = contention === 1 && c.cpuMs > 0 && c.referenceCpuMs > 0 ? c.cpuMs / c.referenceCpuMs : 1;
  return speed * Math.sqrt(contention);
}

/** "memory:8192x4/memory" -> "memory". */
function family(kind: string): string {
  return kind.split(":")[0] as string;
}

/** Rounds that may still join the plan: what they can add, and the budget that stops them. */
export interface Reserve {
  /** Every trial the rounds could add (each cell up to its target), or null when only the budget bounds them. */
  kinds: string[] | null;
  budgetMs: number;
  /** The largest single round: it may start just before the budget is spent and run whole. */
  roundKinds: string[];
  /** The trials every cell runs before the rule's first look (a subset of kinds): counted as planned. */
  expected?: string[];
}

/** A reserve while its rounds may still join: what is left of it, and what its trials took so far. */
type OpenReserve = Reserve & { expected: string[]; spentMs: number };

/** A range of milliseconds: low with the rounds expected to the first look only, high with every reserve's most. */
export interface MsRange {
  low: number;
  high: number;
}

export class Eta {
  private readonly plan: { kind: string; reserve: string | null }[];
  private finished = 0;
  /** Per kind, and per family ("memory:*"): the measured trials' total, count and total of their priors. */
  private readonly measured = new Map<string, { sum: number; n: number; priors: number }>();
  private readonly reserves = new Map<string, OpenReserve>();

  /**
   * `kinds`: the kind of every planned trial, in the order they run; `scale`: how much longer than
   * the priors a trial takes on this machine (machineScale), until trials of its family are measured.
   */
  constructor(
    kinds: readonly string[],
    reserves: Readonly<Record<string, Reserve>> = {},
    private readonly scale = 1,
  ) {
    this.plan = kinds.map((kind) => ({ kind, reserve: null }));
    for (const [name, r] of Object.entries(reserves))
      this.reserves.set(name, {
        ...r,
        kinds: r.kinds ? [...r.kinds] : null,
        expected: [...(r.expected ?? [])],
        spentMs: 0,
      });
  }

  /** More trials joined, from the reserve named (auto-sampling's or the memory rounds'), if any. */
  grow(kinds: readonly string[], reserve: string | null = null): void {
    const r = reserve === null ? undefined : this.reserves.get(reserve);
    for (const kind of kinds) {
      this.plan.push({ kind, reserve: r ? reserve : null });
      if (!r) continue;
      for (const list of [r.expected, r.kinds]) {
        if (!list) continue;
        const i = list.indexOf(kind);
        list.splice(i < 0 ? list.length - 1 : i, 1);
      }
    }
  }

  /** Whether adaptive rounds may still join. */
  hasReserves(): boolean {
    return this.reserves.size > 0;
  }

  /** A reserve's rounds are done: no more of its trials will join. */
  settle(reserve: string): void {
    this.reserves.delete(reserve);
  }

  /** One trial finished after `ms`. */
  record(ms: number): void {
    const trial = this.plan[this.finished] ?? { kind: "latency", reserve: null };
    this.finished++;
    for (const key of [trial.kind, `${family(trial.kind)}:*`]) {
      const m = this.measured.get(key) ?? { sum: 0, n: 0, priors: 0 };
      m.sum += ms;
      m.n++;
      m.priors += priorMs(trial.kind);
      this.measured.set(key, m);
    }
    const r = trial.reserve === null ? undefined : this.reserves.get(trial.reserve);
    if (r) r.spentMs += ms;
  }

  /**
   * A kind's mean measured length; else its prior times how its family's measured trials ran against
   * their priors; else the prior on the range's side.
   */
  private expectedMs(kind: string, side: keyof typeof PRIOR_SPREAD): number {
    const own = this.measured.get(kind);
    if (own) return own.sum / own.n;
    const kin = this.measured.get(`${family(kind)}:*`);
    if (kin) return (priorMs(kind) * kin.sum) / kin.priors;
    return priorMs(kind) * this.scale * PRIOR_SPREAD[side];
  }

  private sumMs(kinds: readonly string[], side: keyof typeof PRIOR_SPREAD): number {
    return kinds.reduce((s, k) => s + this.expectedMs(k, side), 0);
  }

  /** How many trials the open reserves are still expected to add before the first look. */
  expectedTrials(): number {
    return [...this.reserves.values()].reduce((n, r) => n + r.expected.length, 0);
  }

  /** The most a reserve's rounds can still add: its trials left, or its budget left plus a round. */
  private mostMs(r: OpenReserve): number {
    const byBudget = Math.max(0, r.budgetMs - r.spentMs) + this.sumMs(r.roundKinds, "high");
    return r.kinds ? Math.min(this.sumMs(r.kinds, "high"), byBudget) : byBudget;
  }

  /** What a reserve is expected to add before the first look, within its most (ms). */
  private firstLookMs(r: OpenReserve, side: keyof typeof PRIOR_SPREAD): number {
    return Math.min(this.sumMs(r.expected, side), this.mostMs(r));
  }

  /** The planned trials still to run and the rounds expected before the first look (ms). */
  plannedMs(): MsRange {
    const left = this.plan.slice(this.finished).map((t) => t.kind);
    const open = [...this.reserves.values()];
    const expected = (side: keyof typeof PRIOR_SPREAD) => open.reduce((s, r) => s + this.firstLookMs(r, side), 0);
    return { low: this.sumMs(left, "low") + expected("low"), high: this.sumMs(left, "high") + expected("high") };
  }

  /** The most every open reserve's rounds can still add beyond what is expected of them (ms). */
  reserveMs(): number {
    return [...this.reserves.values()].reduce((s, r) => s + this.mostMs(r) - this.firstLookMs(r, "high"), 0);
  }

  /** Milliseconds left as a range; low === high once no reserve is open and every kind is measured. */
  rangeMs(): MsRange {
    const planned = this.plannedMs();
    return { low: planned.low, high: planned.high + this.reserveMs() };
  }

  /** Milliseconds left (the range); null before any trial finished (nothing measured on this machine yet). */
  remainingMs(): MsRange | null {
    return this.finished === 0 ? null : this.rangeMs();
  }
}

/** "1m 05s", "35s": a duration as the progress line shows it. */
export function etaText(ms: number | null): string {
  if (ms === null) return "n/a";
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** "4m 10s", or "4m 10s–9m 30s" while adaptive rounds may still join. */
export function rangeText(r: MsRange | null): string {
  if (r === null) return "n/a";
  const low = etaText(r.low);
  const high = etaText(r.high);
  return low === high ? low : `${low}–${high}`;
}
