// The time left in a run (pure), weighted by what each kind of trial has measured: a memory cell's
// trial (a fresh server, a fixture load, a forced GC) takes about ten times a latency trial, so a
// count of trials alone misleads by that factor at the latency -> memory switch. Each kind's mean
// duration once it has one; before that the family's ("memory" for every memory cell), else a prior.

/** Seconds a trial of each family takes before any was measured (the default run on a 2-core machine). */
export const PRIOR_MS: Record<string, number> = { latency: 1_200, memory: 9_000, leak: 1_500, storm: 12_000 };

/** "memory:8192x4/memory" -> "memory". */
function family(kind: string): string {
  return kind.split(":")[0] as string;
}

export class Eta {
  private readonly plan: string[];
  private finished = 0;
  private readonly measured = new Map<string, { sum: number; n: number }>();

  /** `kinds`: the kind of every planned trial, in the order they run. */
  constructor(kinds: readonly string[]) {
    this.plan = [...kinds];
  }

  /** More trials joined (auto-sampling's rounds). */
  grow(kinds: readonly string[]): void {
    this.plan.push(...kinds);
  }

  /** One trial finished after `ms`. */
  record(ms: number): void {
    const kind = this.plan[this.finished] ?? "latency";
    this.finished++;
    for (const key of [kind, `${family(kind)}:*`]) {
      const m = this.measured.get(key) ?? { sum: 0, n: 0 };
      m.sum += ms;
      m.n++;
      this.measured.set(key, m);
    }
  }

  private expectedMs(kind: string): number {
    const own = this.measured.get(kind) ?? this.measured.get(`${family(kind)}:*`);
    return own ? own.sum / own.n : (PRIOR_MS[family(kind)] ?? PRIOR_MS.latency ?? 1_000);
  }

  /** Milliseconds left; null before any trial finished (nothing measured on this machine yet). */
  remainingMs(): number | null {
    if (this.finished === 0) return null;
    let ms = 0;
    for (const kind of this.plan.slice(this.finished)) ms += this.expectedMs(kind);
    return ms;
  }
}

/** "1m 05s", "35s": a duration as the progress line shows it. */
export function etaText(ms: number | null): string {
  if (ms === null) return "n/a";
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}
