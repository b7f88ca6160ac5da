// "Where the RSS was at its peak" (pure): per memory cell and variant, the RSS split at the heap-lane
// tick with the highest RSS, the median of the ok trials per component, and the table baseline →
// candidate per component with the difference. Older results without a split give no table.
import { type RssSplitPoint, remainderOf } from "../results/rss-split-record.js";
import type { MemoryRow } from "../results/schema.js";
import { mib } from "../util/format.js";
import { median } from "../util/stats.js";

/** The components of the split, in stacking order (bottom first), with their labels. */
export const SPLIT_COMPONENTS = [
  ["heapUsed", "heap used"],
  ["heapFree", "heap committed, unused"],
  ["external", "external"],
  ["remainder", "remainder (code, native, allocator, uncounted Buffers)"],
] as const;
export type SplitComponent = (typeof SPLIT_COMPONENTS)[number][0];

/** Medians over a cell's ok trials of the split at each trial's RSS-peak tick (bytes). */
export interface SplitAtPeak extends Omit<RssSplitPoint, "t"> {
  trials: number;
  /** The lowest remainder of any tick of any trial, and how many ticks were below 0. */
  remainderMin: number;
  negativeRemainders: number;
}

/** Pure: the split at the RSS peak of a variant's trials in one cell; null when none recorded one. */
export function splitAtPeak(rows: readonly MemoryRow[]): SplitAtPeak | null {
  const splits = rows.filter((r) => r.ok && r.rssSplit).map((r) => r.rssSplit as NonNullable<MemoryRow["rssSplit"]>);
  if (splits.length === 0) return null;
  const med = (k: keyof Omit<RssSplitPoint, "t">) => median(splits.map((s) => s.atRssPeak[k]));
  return {
    trials: splits.length,
    rss: med("rss"),
    heapUsed: med("heapUsed"),
    heapTotal: med("heapTotal"),
    external: med("external"),
    arrayBuffers: med("arrayBuffers"),
    // From the components, so results written under an earlier reading of external agree with this one.
    remainder: median(splits.map((s) => remainderOf(s.atRssPeak.rss, s.atRssPeak.heapTotal, s.atRssPeak.external))),
    remainderMin: Math.min(...splits.map((s) => s.remainderMin)),
    negativeRemainders: splits.reduce((n, s) => n + s.negativeRemainders, 0),
  };
}

/** Pure: a split's component in bytes. */
export function componentOf(s: Omit<RssSplitPoint, "t">, c: SplitComponent): number {
  switch (c) {
    case "heapFree":
      return s.heapTotal - s.heapUsed;
    default:
      return s[c];
  }
}

function signed(bytes: number): string {
  const text = mib(Math.abs(bytes));
  return bytes < 0 ? `−${text}` : `+${text}`;
}

/** "a → b (+d)" in MiB, or one figure for a single target. */
function cellText(a: number | null, b: number | null, single: boolean): string {
  if (single) return mib(a);
  if (a === null || b === null) return `${mib(a)} → ${mib(b)}`;
  return `${mib(a)} → ${mib(b)} (${signed(b - a)})`;
}

const TABLE_COLUMNS: [string, (s: SplitAtPeak) => number][] = [
  ["RSS at that tick", (s) => s.rss],
  ["heap used", (s) => s.heapUsed],
  ["heap committed", (s) => s.heapTotal],
  ["external", (s) => s.external],
  ["array buffers (allocated)", (s) => s.arrayBuffers],
  ["remainder", (s) => s.remainder],
];

export interface SplitCell {
  name: string;
  baseline: SplitAtPeak | null;
  candidate: SplitAtPeak | null;
}

/** Pure: the table (MiB, medians of the ok trials); null when no cell recorded a split. */
export function splitCells(
  cells: readonly SplitCell[],
  single: boolean,
): { header: string[]; rows: string[][] } | null {
  const shown = cells.filter((c) => c.baseline || c.candidate);
  if (shown.length === 0) return null;
  return {
    header: ["cell", ...TABLE_COLUMNS.map(([h]) => h), "lowest remainder, any tick"],
    rows: shown.map((c) => [
      c.name,
      ...TABLE_COLUMNS.map(([, f]) =>
        cellText(c.baseline ? f(c.baseline) : null, c.candidate ? f(c.candidate) : null, single),
      ),
      single
        ? mib(c.baseline?.remainderMin ?? null)
        : `${mib(c.baseline?.remainderMin ?? null)} / ${mib(c.candidate?.remainderMin ?? null)}`,
    ]),
  };
}

/** The paragraph under the table: how to read it and what the inspector cannot see. */
export function splitNote(cells: readonly SplitCell[]): string {
  const negative = cells.reduce(
    (n, c) => n + (c.baseline?.negativeRemainders ?? 0) + (c.candidate?.negativeRemainders ?? 0),
    0,
  );
  return (
    "The server's own process.memoryUsage(), read on the heap lane's ticks (one inspector round trip each): per trial the tick with the highest RSS, then the median of the ok trials per column (so the columns of one cell need not add up exactly). " +
    "Heap committed is V8's total (heap used is inside it); external is what V8 accounts for outside its heap; remainder = RSS − heap committed − external: code, native allocations outside V8's accounting (SQLite, zlib, the socket layer), allocator slack and Buffers V8 does not count in external, none of which the inspector can see or attribute. " +
    "Array buffers (Buffers: the frames handed to the socket) are bytes allocated, not resident, and no part of the sum: Node 20 reserves up to 3 bytes per character for Buffer.from(string) and counts them all, and counts some Buffers inside external (a Buffer.alloc) and others not (the bundled server's frames, which then sit in the remainder). " +
    "The RSS lane's own peak (the memory table) can fall between ticks and be higher. " +
    (negative === 0
      ? "The remainder was ≥ 0 in every tick of every trial."
      : `The remainder was below 0 in ${negative} tick${negative === 1 ? "" : "s"}: external or committed heap counted pages not resident.`)
  );
}
